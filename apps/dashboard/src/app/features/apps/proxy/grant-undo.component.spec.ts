import { HttpErrorResponse } from '@angular/common/http';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { RevisionDto } from '@arrbiter/contracts';
import { ProxiesApiService } from '../proxies-api.service';
import { GrantUndoComponent } from './grant-undo.component';

const REVISION = {
  id: 'r1',
  proxyId: 'p1',
  summary: { text: '+1 grant', added: [], removed: [] },
} as unknown as RevisionDto;

describe(GrantUndoComponent.name, () => {
  async function render(undoRevision: jest.Mock) {
    TestBed.configureTestingModule({
      imports: [GrantUndoComponent],
      providers: [provideRouter([]), { provide: ProxiesApiService, useValue: { undoRevision } }],
    });
    const fixture = TestBed.createComponent(GrantUndoComponent);
    fixture.componentRef.setInput('text', 'Granted GET /api/v3/system/backup.');
    fixture.componentRef.setInput('revisions', [REVISION]);
    const undone: RevisionDto[][] = [];
    fixture.componentInstance.undoneChange.subscribe((r) => undone.push(r));
    fixture.detectChanges();
    const element = fixture.nativeElement as HTMLElement;
    (element.querySelector('[data-testid="grant-undo"]') as HTMLButtonElement).click();
    await fixture.whenStable();
    fixture.detectChanges();
    return { element, undone };
  }

  it('undoes each revision the grant made, says so and hides the grant line', async () => {
    const undo = { ...REVISION, id: 'r2', summary: { text: 'Undo: 1 grant removed' } };
    const undoRevision = jest.fn().mockResolvedValue(undo);
    const { element, undone } = await render(undoRevision);
    expect(undoRevision).toHaveBeenCalledWith('p1', 'r1');
    expect(element.querySelector('[data-testid="grant-notice"]')).toBeNull();
    expect(element.querySelector('[data-testid="undo-notice"]')?.textContent?.trim()).toBe(
      'Undone. Undo: 1 grant removed',
    );
    expect(undone).toEqual([[undo]]);
  });

  it('says in words why an Undo was refused (409) and keeps the grant line', async () => {
    const conflict = new HttpErrorResponse({
      status: 409,
      error: { message: 'GET /api/v3/system/backup changed since' },
    });
    const { element, undone } = await render(jest.fn().mockRejectedValue(conflict));
    const notice = element.querySelector('[data-testid="undo-notice"]');
    expect(notice?.getAttribute('role')).toBe('alert');
    expect(notice?.textContent).toContain('Could not undo: a grant it added has changed since');
    expect(notice?.textContent).toContain('GET /api/v3/system/backup changed since');
    expect(element.querySelector('[data-testid="grant-notice"]')).not.toBeNull();
    expect(undone).toEqual([]);
  });
});
