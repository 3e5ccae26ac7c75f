import { TestBed } from '@angular/core/testing';
import type { ClientInstructionsDto } from '@arrbiter/contracts';
import { ClientInstructionsComponent, maskSecrets } from './client-instructions.component';

const KEY = 'k3y-0123456789abcdef0123456789';

function instructions(key: string): ClientInstructionsDto {
  return {
    serviceId: 's1',
    proxyId: 'p1',
    client: 'homepage',
    clientName: 'Homepage',
    specific: true,
    fields: [
      { label: 'URL', value: 'http://arrbiter:8080/proxy/homepage', secret: false },
      { label: 'key', value: key, secret: true },
    ],
    snippet: { filename: 'services.yaml', language: 'yaml', text: `widget:\n  key: ${key}\n` },
    notes: ['Restart Homepage.'],
    source: { title: 'Homepage docs', url: 'https://gethomepage.dev' },
  };
}

describe(ClientInstructionsComponent.name, () => {
  function render(value: ClientInstructionsDto) {
    const fixture = TestBed.createComponent(ClientInstructionsComponent);
    fixture.componentRef.setInput('instructions', value);
    fixture.detectChanges();
    const element = fixture.nativeElement as HTMLElement;
    const code = (label: string) => element.querySelector(`code[data-field="${label}"]`)?.textContent?.trim();
    const buttons = () => [...element.querySelectorAll('button')].map((b) => b.getAttribute('aria-label'));
    return { fixture, element, code, buttons };
  }

  it('masks a secret in its field and in the snippet until revealed', () => {
    const { fixture, element, code, buttons } = render(instructions(KEY));
    expect(code('URL')).toBe('http://arrbiter:8080/proxy/homepage');
    expect(code('key')).toMatch(/^•+$/);
    expect(element.querySelector('pre')?.textContent).not.toContain(KEY);
    expect(buttons()).toEqual(['Copy URL', 'Reveal key', 'Copy key', 'Copy services.yaml']);

    (element.querySelector('button[aria-label="Reveal key"]') as HTMLButtonElement).click();
    fixture.detectChanges();
    expect(code('key')).toBe(KEY);
    expect(element.querySelector('pre')?.textContent).toContain(`key: ${KEY}`);
  });

  it('offers neither reveal nor copy of a key the server masked for a viewer', () => {
    const { element, buttons } = render(instructions('••••'));
    expect(buttons()).toEqual(['Copy URL']);
    expect(element.textContent).toContain('Not shown to viewers');
  });

  it('masks every occurrence of a secret in a text', () => {
    expect(maskSecrets('a KEY b KEY', ['KEY', ''])).toBe(
      'a •••••••••••••••••••••••••••••••• b ••••••••••••••••••••••••••••••••',
    );
  });
});
