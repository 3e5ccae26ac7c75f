import { TestBed } from '@angular/core/testing';
import { MethodBadgeComponent } from './method-badge.component';

describe('MethodBadgeComponent', () => {
  it('shows the method in upper case with the shared method style', () => {
    const fixture = TestBed.createComponent(MethodBadgeComponent);
    fixture.componentRef.setInput('method', 'delete');
    fixture.detectChanges();
    const el = fixture.nativeElement as HTMLElement;
    expect(el.textContent).toBe('DELETE');
    expect(el.classList).toContain('method');
    expect(el.getAttribute('data-method')).toBe('DELETE');

    fixture.componentRef.setInput('method', 'get');
    fixture.detectChanges();
    expect(el.textContent).toBe('GET');
  });
});
