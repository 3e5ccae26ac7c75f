import { ChangeDetectionStrategy, Component, effect, inject, signal, untracked } from '@angular/core';
import type { TemplateRepositoryStatus } from '@arrbiter/contracts';
import { CanDirective } from '../../core/can.directive';
import { Loadable } from '../../core/loadable';
import { TemplatesApiService } from './templates-api.service';
import { busyAction, LoadStateComponent } from '@arrbiter/dashboard/ui';

type RepositoryForm = Pick<TemplateRepositoryStatus, 'url' | 'ref' | 'path' | 'intervalMinutes'>;

/**
 * Where templates come from: the repository, its branch and folder, how often it is synced. A section
 * of Settings (owners change it, others read it); syncing stays on the Templates page.
 */
@Component({
  selector: 'arb-template-repository-settings',
  imports: [CanDirective, LoadStateComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <section class="card pad stack" id="template-repository" aria-labelledby="repo-title">
      <h2 id="repo-title" tabindex="-1">Template repository</h2>
      <p class="hint">
        The community repository templates come from: synced by hand on the Templates page, and on its own at the
        interval below.
      </p>
      <arb-load-state [loading]="repository.loading()" [error]="repository.error()" (retry)="repository.load()" />
      @if (repository.value(); as repo) {
        <form *arbCan="'owner'; else repoFacts" novalidate (submit)="$event.preventDefault(); save()">
          <div class="form-grid">
            <div class="field">
              <label for="repo-url">Repository</label>
              <input
                id="repo-url"
                placeholder="https://github.com/owner/templates.git or /srv/templates"
                [value]="form().url"
                (input)="setField('url', $any($event.target).value)"
                spellcheck="false"
              />
            </div>
            <div class="field">
              <label for="repo-ref">Branch, tag or commit</label>
              <input
                id="repo-ref"
                placeholder="main"
                [value]="form().ref"
                (input)="setField('ref', $any($event.target).value)"
              />
            </div>
            <div class="field">
              <label for="repo-path">Folder</label>
              <input
                id="repo-path"
                placeholder="templates"
                [value]="form().path"
                (input)="setField('path', $any($event.target).value)"
                aria-describedby="repo-path-hint"
              />
              <small id="repo-path-hint">Holds &lt;serviceType&gt;/&lt;template&gt;.json; empty for the root.</small>
            </div>
            <div class="field">
              <label for="repo-interval">Sync every (minutes)</label>
              <input
                id="repo-interval"
                type="number"
                min="0"
                step="1"
                [value]="form().intervalMinutes"
                (input)="setField('intervalMinutes', $any($event.target).value)"
                aria-describedby="repo-interval-hint"
              />
              <small id="repo-interval-hint">0 turns automatic syncs off.</small>
            </div>
          </div>
          <div class="form-actions">
            <button type="submit" class="primary" [disabled]="saving.busy()">
              {{ saving.busy() ? 'Saving…' : 'Save settings' }}
            </button>
          </div>
        </form>
        <ng-template #repoFacts>
          <dl class="facts">
            <dt>Repository</dt>
            <dd>
              <code>{{ repo.url || 'none' }}</code>
            </dd>
            <dt>Branch, tag or commit</dt>
            <dd>{{ repo.ref || '—' }}</dd>
            <dt>Folder</dt>
            <dd>{{ repo.path || 'the root' }}</dd>
            <dt>Sync every</dt>
            <dd>{{ repo.intervalMinutes ? repo.intervalMinutes + ' minutes' : 'never (automatic syncs off)' }}</dd>
          </dl>
          <p class="hint">Owners change the repository.</p>
        </ng-template>
      }
      @if (saving.notice(); as m) {
        <p [class]="m.ok ? 'success' : 'error'" [attr.role]="m.ok ? 'status' : 'alert'">{{ m.text }}</p>
      }
    </section>
  `,
})
export class TemplateRepositorySettingsComponent {
  private readonly api = inject(TemplatesApiService);
  protected readonly repository = new Loadable(() => this.api.repository());
  protected readonly form = signal<RepositoryForm>({ url: '', ref: '', path: '', intervalMinutes: 0 });
  protected readonly saving = busyAction();

  constructor() {
    void this.repository.load();
    effect(() => {
      const status = this.repository.value();
      if (status)
        untracked(() =>
          this.form.set({
            url: status.url,
            ref: status.ref,
            path: status.path,
            intervalMinutes: status.intervalMinutes,
          }),
        );
    });
  }

  protected setField(field: keyof RepositoryForm, value: string): void {
    this.form.update((f) => ({
      ...f,
      [field]: field === 'intervalMinutes' ? Math.max(0, Math.floor(+value || 0)) : value,
    }));
  }

  protected async save(): Promise<void> {
    const f = this.form();
    const outcome = await this.saving.run(
      () => this.api.saveRepository({ ...f, url: f.url.trim(), ref: f.ref.trim(), path: f.path.trim() }),
      'Repository settings saved.',
    );
    if (outcome.ok) this.repository.set(outcome.value);
  }
}
