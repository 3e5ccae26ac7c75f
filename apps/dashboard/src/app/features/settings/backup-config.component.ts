import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import type { ConfigImportReport, ConfigObjectChange, ConfigProxyChange } from '@arrbiter/contracts';
import { ConfirmService, describeError, errorLines } from '@arrbiter/dashboard/ui';
import { CanDirective } from '../../core/can.directive';
import { saveTextFile } from '../../core/download';
import { ConfigApiService, ConfigFormat } from './config-api.service';

/** What the import's file input holds, read as text. */
interface ChosenFile {
  name: string;
  text: string;
  format: ConfigFormat;
}

interface ReportGroup {
  title: string;
  changes: (ConfigObjectChange | ConfigProxyChange)[];
}

/** The largest document the server takes (MAX_DOCUMENT_BYTES). */
const MAX_BYTES = 10 * 1024 * 1024;

const KIND_BADGES = { created: 'ok', updated: 'accent', deleted: 'danger' } as const;

/**
 * Backup and declarative configuration: download the whole configuration (JSON or YAML, secrets only
 * after a confirmation), and import a document: a dry run shows what it would change, then "Apply".
 */
@Component({
  selector: 'arb-backup-config',
  imports: [CanDirective],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './backup-config.component.html',
  styles: `
    h3 {
      font-size: 1rem;
      margin: 0;
    }
    .format {
      border: 0;
      padding: 0;
      margin: 0;
    }
    .format legend {
      font-weight: 600;
      font-size: 0.875rem;
      padding: 0;
      margin-right: 0.5rem;
      float: left;
    }
    h4 {
      font-size: 0.9rem;
      margin: 0.5rem 0 0.25rem;
    }
    .changes {
      margin: 0;
      padding-left: 1.25rem;
      display: grid;
      gap: 0.25rem;
    }
    .changes li {
      display: flex;
      flex-wrap: wrap;
      align-items: baseline;
      gap: 0.375rem;
    }
    .error ul {
      margin: 0.25rem 0 0;
      padding-left: 1.25rem;
    }
    .error p {
      margin: 0;
    }
  `,
})
export class BackupConfigComponent {
  private readonly api = inject(ConfigApiService);
  private readonly confirm = inject(ConfirmService);

  protected readonly format = signal<ConfigFormat>('yaml');
  protected readonly secrets = signal(false);
  protected readonly exporting = signal(false);
  protected readonly exportMessage = signal<{ ok: boolean; text: string } | null>(null);

  protected readonly file = signal<ChosenFile | null>(null);
  protected readonly busy = signal(false);
  protected readonly applying = signal(false);
  protected readonly report = signal<ConfigImportReport | null>(null);
  protected readonly importError = signal<string[] | null>(null);

  protected readonly groups = computed<ReportGroup[]>(() => {
    const r = this.report();
    if (!r) return [];
    const groups: ReportGroup[] = [
      { title: 'Settings', changes: r.settings },
      { title: 'Services', changes: r.services },
      { title: 'Templates', changes: r.templates },
      { title: 'Apps', changes: r.apps },
      { title: 'Proxies', changes: r.proxies },
    ];
    return groups.filter((group) => group.changes.length > 0);
  });

  protected readonly summary = computed(() => {
    const r = this.report();
    if (!r) return '';
    const counts = this.groups().map((group) => {
      const n = (kind: string) => group.changes.filter((c) => c.kind === kind).length;
      const parts = (['created', 'updated', 'deleted'] as const).filter((k) => n(k) > 0).map((k) => `${n(k)} ${k}`);
      return `${group.title.toLowerCase()}: ${parts.join(', ')}`;
    });
    return `${r.dryRun ? 'Would change' : 'Changed'} ${counts.join('; ')}.`;
  });

  protected badge(change: ConfigObjectChange): string {
    return KIND_BADGES[change.kind];
  }

  protected grants(change: ConfigObjectChange | ConfigProxyChange): string {
    if (!('added' in change)) return '';
    const parts = [
      change.added.length > 0 ? `+${change.added.length} grants` : '',
      change.removed.length > 0 ? `−${change.removed.length} grants` : '',
    ].filter(Boolean);
    return parts.join(', ');
  }

  protected async download(): Promise<void> {
    this.exportMessage.set(null);
    if (this.secrets()) {
      const ok = await this.confirm.ask({
        title: 'Download with secrets?',
        message:
          'The file will hold every service’s API key and every proxy key in clear text. Anyone who has it can use them: keep it as safe as the keys themselves.',
        confirmLabel: 'Download with secrets',
        danger: true,
      });
      if (!ok) return;
    }
    this.exporting.set(true);
    try {
      const format = this.format();
      const text = await this.api.export(format, this.secrets());
      const name = `arrbiter-config-${new Date().toISOString().slice(0, 10)}.${format}`;
      saveTextFile(name, text, format === 'yaml' ? 'application/yaml' : 'application/json');
      this.exportMessage.set({
        ok: true,
        text: `Downloaded ${name}${this.secrets() ? ', with secrets' : ''}.`,
      });
    } catch (error) {
      this.exportMessage.set({ ok: false, text: describeError(error) });
    } finally {
      this.exporting.set(false);
    }
  }

  protected async choose(event: Event): Promise<void> {
    this.report.set(null);
    this.importError.set(null);
    const chosen = (event.target as HTMLInputElement).files?.[0];
    if (!chosen) {
      this.file.set(null);
      return;
    }
    if (chosen.size > MAX_BYTES) {
      this.file.set(null);
      this.importError.set([`${chosen.name} is larger than 10 MiB`]);
      return;
    }
    this.file.set({
      name: chosen.name,
      text: await chosen.text(),
      format: chosen.name.toLowerCase().endsWith('.json') ? 'json' : 'yaml',
    });
  }

  protected check(): Promise<void> {
    return this.send(true);
  }

  protected async apply(): Promise<void> {
    const deletions = this.groups()
      .flatMap((g) => g.changes)
      .filter((c) => c.kind === 'deleted').length;
    if (deletions > 0) {
      const ok = await this.confirm.ask({
        title: 'Apply the import?',
        message: `The document prunes: ${deletions} object${deletions === 1 ? '' : 's'} will be deleted (an app takes its proxies and keys with it).`,
        confirmLabel: 'Apply and delete',
        danger: true,
      });
      if (!ok) return;
    }
    await this.send(false);
  }

  private async send(dryRun: boolean): Promise<void> {
    const file = this.file();
    if (!file) return;
    this.busy.set(true);
    this.applying.set(!dryRun);
    this.importError.set(null);
    try {
      this.report.set(await this.api.import(file.text, file.format, dryRun));
    } catch (error) {
      this.report.set(null);
      this.importError.set(errorLines(error));
    } finally {
      this.busy.set(false);
      this.applying.set(false);
    }
  }
}
