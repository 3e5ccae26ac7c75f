import { TestBed } from '@angular/core/testing';
import type { AdminRole, Grant } from '@arrbiter/contracts';
import { AuthService } from '../../../core/auth.service';
import { GrantListComponent } from './grant-list.component';

const GRANTS: Grant[] = [
  { method: 'get', path: '/api/v3/calendar' },
  { method: 'delete', path: '/api/v3/movie/{id}' },
];

describe(GrantListComponent.name, () => {
  function render({ role = 'editor' as AdminRole, busy = false } = {}) {
    TestBed.configureTestingModule({
      imports: [GrantListComponent],
      providers: [
        {
          provide: AuthService,
          useValue: { can: (required: AdminRole) => role !== 'viewer' || required === 'viewer' },
        },
      ],
    });
    const fixture = TestBed.createComponent(GrantListComponent);
    fixture.componentRef.setInput('grants', GRANTS);
    fixture.componentRef.setInput('busy', busy);
    fixture.componentRef.setInput('testIdPrefix', 'unused-');
    const revoked: Grant[] = [];
    fixture.componentInstance.revoke.subscribe((grant) => revoked.push(grant));
    fixture.detectChanges();
    const element = fixture.nativeElement as HTMLElement;
    const buttons = [...element.querySelectorAll<HTMLButtonElement>('button')];
    return { element, buttons, revoked };
  }

  it('lists each grant by its method and path, with a Revoke button named after it', () => {
    const { element, buttons } = render();
    const rows = [...element.querySelectorAll('ul.plain > li.row')];
    expect(rows.map((r) => [r.getAttribute('data-testid'), r.textContent?.replace(/\s+/g, ' ').trim()])).toEqual([
      ['unused-get-/api/v3/calendar', 'GET /api/v3/calendar Revoke'],
      ['unused-delete-/api/v3/movie/{id}', 'DELETE /api/v3/movie/{id} Revoke'],
    ]);
    expect(buttons.map((b) => [b.getAttribute('aria-label'), b.disabled])).toEqual([
      ['Revoke GET /api/v3/calendar', false],
      ['Revoke DELETE /api/v3/movie/{id}', false],
    ]);
  });

  it('says which grant to revoke and leaves the change to its tab', () => {
    const { buttons, revoked } = render();
    buttons[1].click();
    expect(revoked).toEqual([{ method: 'delete', path: '/api/v3/movie/{id}' }]);
  });

  it('disables the buttons while a change is under way', () => {
    const { buttons } = render({ busy: true });
    expect(buttons.map((b) => b.disabled)).toEqual([true, true]);
  });

  it('shows a viewer the grants without a button', () => {
    const { element, buttons } = render({ role: 'viewer' });
    expect(element.querySelectorAll('li')).toHaveLength(2);
    expect(buttons).toHaveLength(0);
  });
});
