import { ChangeDetectionStrategy, Component, computed, effect, inject, signal, untracked } from '@angular/core';
import { RouterLink } from '@angular/router';
import type {
  KnownClientSummaryDto,
  PendingTemplateChangeDto,
  TemplateDto,
  TemplateFitResponse,
  TemplateSyncReport,
} from '@arrbiter/contracts';
import { CanDirective } from '../../core/can.directive';
import { saveTextFile } from '../../core/download';
import { grantsOf } from '../apps/proxy/allowlist-draft';
import { Loadable } from '../../core/loadable';
import { KnownClientsApiService } from '../known-clients/known-clients-api.service';
import { clientForTemplate } from '../known-clients/known-clients';
import { TemplateFitComponent } from '../known-clients/template-fit.component';
import { SyncReportComponent } from './sync-report.component';
import { TemplatesApiService } from './templates-api.service';
import {
  ConfirmService,
  describeError,
  EmptyStateComponent,
  LoadStateComponent,
  MethodBadgeComponent,
  PageHeaderComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';

/** A template's fit for its known client, loading or failed. */
interface FitState {
  fit?: TemplateFitResponse;
  error?: string;
}

/**
 * Templates with their blocks per service type and their fit for the known client each was written for
 * (with the suggested file per service type); the repository they come from and its sync.
 */
@Component({
  selector: 'arb-templates-page',
  imports: [
    CanDirective,
    RouterLink,
    LoadStateComponent,
    TimeComponent,
    SyncReportComponent,
    TemplateFitComponent,
    MethodBadgeComponent,
    PageHeaderComponent,
    EmptyStateComponent,
  ],
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
    .fit {
      margin-top: 0.75rem;
      padding-top: 0.5rem;
      border-top: 1px solid var(--border);
    }
    .downloads {
      margin-top: 0.5rem;
    }
    .pending {
      margin-bottom: 1.5rem;
    }
    .pending h3 {
      margin: 0;
      font-size: 1rem;
    }
    .diff {
      list-style: none;
      padding: 0;
      margin: 0.25rem 0 0.5rem;
    }
    .add {
      color: var(--ok);
    }
    .del {
      color: var(--danger);
    }
  `,
})
export class TemplatesPage {
  private readonly api = inject(TemplatesApiService);
  private readonly knownClientsApi = inject(KnownClientsApiService);
  private readonly confirm = inject(ConfirmService);
  protected readonly templates = new Loadable(() => this.api.list());
  protected readonly knownClients = new Loadable(() => this.knownClientsApi.list());
  /** Per template id: the known client it was written for. */
  protected readonly clients = computed(() => {
    const clients = this.knownClients.value() ?? [];
    const result = new Map<string, KnownClientSummaryDto>();
    for (const t of this.templates.value() ?? []) {
      const client = clientForTemplate(t.name, clients);
      if (client) result.set(t.id, client);
    }
    return result;
  });
  /** Per template id: its fit for its client. */
  protected readonly fits = signal<ReadonlyMap<string, FitState>>(new Map());
  /** The last suggested file's download, shown in its template's card. */
  protected readonly download = signal<{ templateId: string; ok: boolean; text: string } | null>(null);
  protected readonly downloading = signal<string | null>(null);
  protected readonly repository = new Loadable(() => this.api.repository());
  /** Widenings of templates in use that syncs held for an editor. */
  protected readonly pending = new Loadable(() => this.api.pending());
  /** The held change being applied or dismissed (its template id). */
  protected readonly deciding = signal<string | null>(null);
  protected readonly pendingMessage = signal<{ ok: boolean; text: string } | null>(null);
  protected readonly syncing = signal<'preview' | 'sync' | null>(null);
  protected readonly message = signal<{ ok: boolean; text: string } | null>(null);
  protected readonly report = signal<TemplateSyncReport | null>(null);
  protected readonly grants = grantsOf;

  constructor() {
    void this.templates.load();
    void this.repository.load();
    void this.knownClients.load();
    void this.pending.load();
    effect(() => {
      const clients = this.clients();
      untracked(() => void this.loadFits(clients));
    });
  }

  /** Each template's fit for its client, in one request (a failure shows in each card). */
  private async loadFits(clients: ReadonlyMap<string, KnownClientSummaryDto>): Promise<void> {
    this.fits.set(new Map());
    if (clients.size === 0) return;
    let states: Map<string, FitState>;
    try {
      const byTemplate = new Map((await this.api.fits()).items.map((fit) => [fit.templateId, fit]));
      states = new Map(
        [...clients.keys()].map((templateId): [string, FitState] => {
          const fit = byTemplate.get(templateId);
          return [templateId, fit ? { fit } : { error: 'the server knows no client written for this template' }];
        }),
      );
    } catch (error) {
      const text = describeError(error);
      states = new Map([...clients.keys()].map((templateId): [string, FitState] => [templateId, { error: text }]));
    }
    // A newer load (after a sync) replaced the map: this answer is stale.
    if (this.clients() === clients) this.fits.set(states);
  }

  /** Where the community repository keeps a template's block: `radarr/maintainerr.json`. */
  protected suggestedFile(template: TemplateDto, serviceType: string): string {
    return `${serviceType}/${template.name}.json`;
  }

  /** The template's block for one service type with the client's missing calls added and unused grants removed. */
  protected async downloadSuggested(template: TemplateDto, client: string, serviceType: string): Promise<void> {
    const key = `${template.id} ${serviceType}`;
    this.downloading.set(key);
    this.download.set(null);
    try {
      const text = await this.api.suggested(template.id, client, serviceType);
      const name = `${serviceType}-${template.name}.json`;
      saveTextFile(name, text, 'application/json');
      this.download.set({
        templateId: template.id,
        ok: true,
        text: `Downloaded ${name}: the file ${this.suggestedFile(template, serviceType)} of the template repository, with the missing calls added and the unused grants removed.`,
      });
    } catch (error) {
      this.download.set({ templateId: template.id, ok: false, text: describeError(error) });
    } finally {
      this.downloading.set(null);
    }
  }

  protected blockTypes(template: TemplateDto): string[] {
    return Object.keys(template.blocks).sort();
  }

  protected async sync(dryRun: boolean): Promise<void> {
    if (!dryRun) {
      const ok = await this.confirm.ask({
        title: 'Sync templates now?',
        message:
          'Removals, and changes to templates no app uses, apply at once; grants added to a template in use wait for review under Pending template changes. Preview first to see what would change.',
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
        void this.pending.load();
      }
    } catch (error) {
      this.message.set({ ok: false, text: describeError(error) });
    } finally {
      this.syncing.set(null);
    }
  }

  /** Grants a held change adds, over every service type. */
  protected addedCount(change: PendingTemplateChangeDto): number {
    return change.blocks.reduce((sum, block) => sum + block.added.length, 0);
  }

  protected async applyPending(change: PendingTemplateChangeDto): Promise<void> {
    const count = this.addedCount(change);
    const ok = await this.confirm.ask({
      title: `Apply the change to ${change.templateName}?`,
      message: `${count} grant${count === 1 ? '' : 's'} will be added to the template and to the ${change.proxies.length} prox${change.proxies.length === 1 ? 'y' : 'ies'} whose apps use it.`,
      confirmLabel: 'Apply',
    });
    if (!ok) return;
    await this.decide(change, async () => {
      const applied = await this.api.applyPending(change.templateId);
      return `Applied to ${change.templateName}: ${applied.proxies.length} prox${applied.proxies.length === 1 ? 'y' : 'ies'} changed.`;
    });
  }

  protected async dismissPending(change: PendingTemplateChangeDto): Promise<void> {
    await this.decide(change, async () => {
      await this.api.dismissPending(change.templateId);
      return `Dismissed the change to ${change.templateName}: nothing was granted.`;
    });
  }

  private async decide(change: PendingTemplateChangeDto, act: () => Promise<string>): Promise<void> {
    this.deciding.set(change.templateId);
    this.pendingMessage.set(null);
    try {
      this.pendingMessage.set({ ok: true, text: await act() });
      void this.templates.load();
    } catch (error) {
      this.pendingMessage.set({ ok: false, text: describeError(error) });
    } finally {
      this.deciding.set(null);
      void this.pending.load();
    }
  }
}
