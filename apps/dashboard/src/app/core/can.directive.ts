import { Directive, effect, inject, input, TemplateRef, ViewContainerRef } from '@angular/core';
import type { AdminRole } from '@arrbiter/contracts';
import { AuthService } from './auth.service';

/**
 * Shows its element only to administrators whose role is the one named or above, and otherwise the
 * `else` template if one is given: `<button *arbCan="'editor'">Delete</button>`,
 * `<arb-limits-form *arbCan="'editor'; else readOnly" …/>`. Every write control of the dashboard goes
 * through it, so a viewer sees none; the server refuses their writes anyway (403).
 */
@Directive({ selector: '[arbCan]' })
export class CanDirective {
  private readonly auth = inject(AuthService);
  private readonly template = inject<TemplateRef<unknown>>(TemplateRef);
  private readonly container = inject(ViewContainerRef);
  /** The least role that sees the element. */
  readonly arbCan = input.required<AdminRole>();
  /** What the others see instead (nothing when unset). */
  readonly arbCanElse = input<TemplateRef<unknown> | null>(null);
  private shown: boolean | undefined;

  constructor() {
    effect(() => {
      // Reads the session's role through `can()`: the view follows a session that changes.
      const show = this.auth.can(this.arbCan());
      const otherwise = this.arbCanElse();
      if (show === this.shown) return;
      this.container.clear();
      if (show) this.container.createEmbeddedView(this.template);
      else if (otherwise) this.container.createEmbeddedView(otherwise);
      this.shown = show;
    });
  }
}
