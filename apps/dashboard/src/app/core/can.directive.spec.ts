import { ChangeDetectionStrategy, Component, signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import type { AdminRole } from '@arrbiter/contracts';
import { AuthService } from './auth.service';
import { CanDirective } from './can.directive';

@Component({
  imports: [CanDirective],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <button *arbCan="'editor'; else readOnly">Delete</button>
    <ng-template #readOnly><span>read only</span></ng-template>
    <a *arbCan="'owner'">Accounts</a>
  `,
})
class Host {}

describe(CanDirective.name, () => {
  const role = signal<AdminRole | null>(null);
  const RANK = { viewer: 1, editor: 2, owner: 3 };

  beforeEach(() => {
    TestBed.configureTestingModule({
      imports: [Host],
      providers: [
        {
          provide: AuthService,
          useValue: { can: (r: AdminRole) => role() !== null && RANK[role() as AdminRole] >= RANK[r] },
        },
      ],
    });
  });

  function render(as: AdminRole | null) {
    role.set(as);
    const fixture = TestBed.createComponent(Host);
    fixture.detectChanges();
    return { fixture, element: fixture.nativeElement as HTMLElement };
  }

  it('shows a viewer no write control, only the read-only alternative', () => {
    const { element } = render('viewer');
    expect(element.querySelector('button')).toBeNull();
    expect(element.querySelector('a')).toBeNull();
    expect(element.textContent).toContain('read only');
  });

  it('shows an editor the editor controls, and an owner everything', () => {
    const { element } = render('editor');
    expect(element.querySelector('button')?.textContent).toBe('Delete');
    expect(element.querySelector('a')).toBeNull();
    role.set('owner');
    const owner = render('owner').element;
    expect(owner.querySelector('a')?.textContent).toBe('Accounts');
    expect(owner.textContent).not.toContain('read only');
  });

  it('follows the role when the session changes', async () => {
    const { fixture, element } = render('editor');
    expect(element.querySelector('button')).not.toBeNull();
    role.set('viewer');
    fixture.detectChanges();
    await fixture.whenStable();
    expect(element.querySelector('button')).toBeNull();
    expect(element.textContent).toContain('read only');
  });
});
