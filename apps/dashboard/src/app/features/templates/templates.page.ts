import { ChangeDetectionStrategy, Component, effect, inject, signal, untracked } from '@angular/core';
import type { TemplateDto, TemplateRepositoryStatus, TemplateSyncReport } from '@arrbiter/contracts';
import { describeError } from '../../core/api-error';
import { CanDirective } from '../../core/can.directive';
import { grantsOf } from '../apps/proxy/allowlist-draft';
import { Loadable } from '../../core/loadable';
import { SyncReportComponent } from './sync-report.component';
import { TemplatesApiService } from './templates-api.service';
import { ConfirmService, LoadStateComponent, TimeComponent, methodLabel } from '@arrbiter/dashboard/ui';

/** Templates with their blocks per service type; the repository they come from and its sync. */
@Component({
  selector: 'arb-templates-page',
  imports: [CanDirective, LoadStateComponent, TimeComponent, SyncReportComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './templates.page.html',
  styles: `
    .templates {
      display: grid;
      gap: 0.75rem;
      grid-template-columns: repeat(auto-fill, minmax(18rem, 1fr));
      margin-bottom: 1.5rem;
    }
    .blocks {
      list-style: none;
      padding: 0;
      margin: 0.5rem 0 0;
    }
    .grants {
      max-height: 12rem;
      overflow: auto;
      margin: 0.25rem 0 0.5rem;
    }
  `,
})
export class TemplatesPage {
  private readonly api = inject(TemplatesApiService);
  private readonly confirm = inject(ConfirmService);
  protected readonly templates = new Loadable(() => this.api.list());
  protected readonly repository = new Loadable(() => this.api.repository());
  protected readonly form = signal({ url: '', ref: '', path: '', intervalMinutes: 0 });
  protected readonly saving = signal(false);
  protected readonly syncing = signal<'preview' | 'sync' | null>(null);
  protected readonly message = signal<{ ok: boolean; text: string } | null>(null);
  protected readonly report = signal<TemplateSyncReport | null>(null);
  protected readonly method = methodLabel;
  protected readonly grants = grantsOf;

  constructor() {
    void this.templates.load();
    void this.repository.load();
    effect(() => {
      const status = this.repository.value();
      if (status) untracked(() => this.fill(status));
    });
  }

  protected blockTypes(template: TemplateDto): string[] {
    return Object.keys(template.blocks).sort();
  }

  protected setField(field: 'url' | 'ref' | 'path' | 'intervalMinutes', value: string): void {
    this.form.update((f) => ({
      ...f,
      [field]: field === 'intervalMinutes' ? Math.max(0, Math.floor(+value || 0)) : value,
    }));
  }

  protected async saveRepository(): Promise<void> {
    this.saving.set(true);
    this.message.set(null);
    try {
      const f = this.form();
      const status = await this.api.saveRepository({ ...f, url: f.url.trim(), ref: f.ref.trim(), path: f.path.trim() });
      this.repository.set(status);
      this.message.set({ ok: true, text: 'Repository settings saved.' });
    } catch (error) {
      this.message.set({ ok: false, text: describeError(error) });
    } finally {
      this.saving.set(false);
    }
  }

  protected async sync(dryRun: boolean): Promise<void> {
    if (!dryRun) {
      const ok = await this.confirm.ask({
        title: 'Sync templates now?',
        message:
          'Changes apply at once: proxies whose templates change get new grants or lose some. Preview first to see what would change.',
        confirmLabel: 'Sync now',
      });
      if (!ok) return;
    }
    this.syncing.set(dryRun ? 'preview' : 'sync');
    this.message.set(null);
    try {
      this.report.set(await this.api.sync(dryRun));
      if (!dryRun) {
        void this.templates.load();
        void this.repository.load();
      }
    } catch (error) {
      this.message.set({ ok: false, text: describeError(error) });
    } finally {
      this.syncing.set(null);
    }
  }

  private fill(status: TemplateRepositoryStatus): void {
    this.form.set({ url: status.url, ref: status.ref, path: status.path, intervalMinutes: status.intervalMinutes });
  }
}
