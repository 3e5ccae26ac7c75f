import { ChangeDetectionStrategy, Component, computed, input, model } from '@angular/core';
import { SLUG_PATTERN, slugify } from '@arrbiter/dashboard/ui';

/** The longest app name the server takes (it answers 400 beyond). */
export const APP_NAME_MAX = 100;

/** What is wrong with an app's name and slug before they are sent, or null. */
export function appNameProblem(name: string, slug: string): string | null {
  if (!name.trim()) return 'Enter a name.';
  if (name.trim().length > APP_NAME_MAX) return `The name is too long: at most ${APP_NAME_MAX} characters.`;
  if (!slug) return 'Enter a slug.';
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
        [attr.maxlength]="max"
        [placeholder]="placeholder()"
        [value]="name()"
        (input)="setName($any($event.target).value)"
        [attr.aria-invalid]="invalid() || null"
        [attr.aria-describedby]="describedBy('-name-count')"
      />
      <small [id]="idPrefix() + '-name-count'" [class.warning]="name().length >= max">
        {{ name().length }} of {{ max }} characters{{ name().length >= max ? ': the limit' : '' }}
      </small>
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
        [attr.aria-invalid]="invalid() || null"
        [attr.aria-describedby]="describedBy('-slug-hint')"
      />
      <small [id]="idPrefix() + '-slug-hint'">In the proxy URL: /proxy/{{ slug() || 'slug' }}</small>
    </div>
  `,
})
export class AppNameFieldsComponent {
  /** Prefix of the fields' ids (`app` → `app-name`, `app-slug`). */
  readonly idPrefix = input.required<string>();
  readonly placeholder = input('');
  /** Whether the form's own message says the name or slug is wrong (then both say so to assistive tech). */
  readonly invalid = input(false);
  /** The id of the form's message about them, read along with each field. */
  readonly errorId = input<string | null>(null);
  protected readonly max = APP_NAME_MAX;
  private readonly errorRef = computed(() => (this.invalid() && this.errorId() ? ` ${this.errorId()}` : ''));

  protected describedBy(suffix: string): string {
    return this.idPrefix() + suffix + this.errorRef();
  }
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
