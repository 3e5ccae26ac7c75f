import { ChangeDetectionStrategy, Component, input, model } from '@angular/core';
import { SLUG_PATTERN, slugify } from '@arrbiter/dashboard/ui';

/** What is wrong with an app's name and slug before they are sent, or null. */
export function appNameProblem(name: string, slug: string): string | null {
  if (!name.trim()) return 'Enter a name.';
  if (!SLUG_PATTERN.test(slug))
    return 'The slug uses lower-case letters, digits and dashes, and starts with a letter or digit.';
  return null;
}

/**
 * An app's name and slug fields (new app, edit, clone): the slug follows the name until one is typed.
 * Its two fields sit in the form's own layout (the host element takes no box).
 */
@Component({
  selector: 'arb-app-name-fields',
  changeDetection: ChangeDetectionStrategy.OnPush,
  host: { style: 'display: contents' },
  template: `
    <div class="field">
      <label [for]="idPrefix() + '-name'">Name</label>
      <input
        [id]="idPrefix() + '-name'"
        required
        maxlength="100"
        [placeholder]="placeholder()"
        [value]="name()"
        (input)="setName($any($event.target).value)"
      />
    </div>
    <div class="field">
      <label [for]="idPrefix() + '-slug'">Slug</label>
      <input
        [id]="idPrefix() + '-slug'"
        required
        maxlength="63"
        spellcheck="false"
        autocapitalize="none"
        [value]="slug()"
        (input)="setSlug($any($event.target).value)"
        [attr.aria-describedby]="idPrefix() + '-slug-hint'"
      />
      <small [id]="idPrefix() + '-slug-hint'">In the proxy URL: /proxy/{{ slug() || 'slug' }}</small>
    </div>
  `,
})
export class AppNameFieldsComponent {
  /** Prefix of the fields' ids (`app` → `app-name`, `app-slug`). */
  readonly idPrefix = input.required<string>();
  readonly placeholder = input('');
  readonly name = model.required<string>();
  readonly slug = model.required<string>();
  /** Whether the slug was typed (then it no longer follows the name). */
  readonly slugEdited = model(false);

  protected setName(value: string): void {
    this.name.set(value);
    if (!this.slugEdited()) this.slug.set(slugify(value));
  }

  protected setSlug(value: string): void {
    this.slug.set(value);
    this.slugEdited.set(value !== '');
  }
}
