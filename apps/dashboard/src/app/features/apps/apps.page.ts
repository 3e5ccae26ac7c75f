import { ChangeDetectionStrategy, Component, inject, OnInit, signal } from '@angular/core';
import { Router, RouterLink } from '@angular/router';
import type { AppDto } from '@arrbiter/contracts';
import { describeError } from '../../core/api-error';
import { Loadable } from '../../core/loadable';
import { TemplatesApiService } from '../templates/templates-api.service';
import { AppFormComponent } from './app-form.component';
import { AppsApiService } from './apps-api.service';
import { ConfirmService, LoadStateComponent } from '@arrbiter/dashboard/ui';

@Component({
  selector: 'arb-apps-page',
  imports: [LoadStateComponent, AppFormComponent, RouterLink],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <header class="page-head">
      <div class="grow">
        <h1>Apps</h1>
        <p class="muted">One app per client integration, each with its own keys and allowlists.</p>
      </div>
      @if (!creating()) {
        <button type="button" class="primary" (click)="creating.set(true)">New app</button>
      }
    </header>
    @if (creating()) {
      <arb-app-form
        [templates]="templates.value() ?? []"
        [templatesError]="templates.error()"
        (saved)="created($event)"
        (closed)="creating.set(false)"
      />
    }
    @if (message(); as m) {
      <p class="error" role="alert">{{ m }}</p>
    }
    <arb-load-state [loading]="apps.loading()" [error]="apps.error()" (retry)="apps.load()" />
    @if (apps.value(); as list) {
      @if (list.length === 0) {
        <section class="card empty-state"><p>No apps yet. Create one for each client integration.</p></section>
      } @else {
        <section class="card table-wrap">
          <table class="responsive">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Slug</th>
                <th scope="col">Template</th>
                <th scope="col">State</th>
                <th scope="col">Proxies</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              @for (app of list; track app.id) {
                <tr>
                  <td data-label="Name">
                    <a [routerLink]="['/apps', app.id]">{{ app.name }}</a>
                  </td>
                  <td data-label="Slug">
                    <code>{{ app.slug }}</code>
                  </td>
                  <td data-label="Template">{{ app.templateName ?? 'No template' }}</td>
                  <td data-label="State">
                    <span class="badge" [class.ok]="app.active">{{ app.active ? 'Active' : 'Inactive' }}</span>
                  </td>
                  <td data-label="Proxies">{{ app.proxyCount }}</td>
                  <td class="actions">
                    <button type="button" class="small danger" (click)="remove(app)">Delete</button>
                  </td>
                </tr>
              }
            </tbody>
          </table>
        </section>
      }
    }
  `,
})
export class AppsPage implements OnInit {
  private readonly api = inject(AppsApiService);
  private readonly templatesApi = inject(TemplatesApiService);
  private readonly confirm = inject(ConfirmService);
  private readonly router = inject(Router);
  protected readonly apps = new Loadable(() => this.api.list());
  protected readonly templates = new Loadable(() => this.templatesApi.list());
  protected readonly creating = signal(false);
  protected readonly message = signal<string | null>(null);

  ngOnInit(): void {
    void this.apps.load();
    void this.templates.load();
  }

  protected async created(app: AppDto): Promise<void> {
    this.creating.set(false);
    await this.router.navigate(['/apps', app.id]);
  }

  protected async remove(app: AppDto): Promise<void> {
    this.message.set(null);
    const ok = await this.confirm.ask({
      title: `Delete ${app.name}?`,
      message: `Its ${app.proxyCount} prox${app.proxyCount === 1 ? 'y stops' : 'ies stop'} working at once and their keys are gone.`,
      confirmLabel: 'Delete app',
      danger: true,
    });
    if (!ok) return;
    try {
      await this.api.remove(app.id);
      this.apps.set((this.apps.value() ?? []).filter((a) => a.id !== app.id));
    } catch (error) {
      this.message.set(describeError(error));
    }
  }
}
