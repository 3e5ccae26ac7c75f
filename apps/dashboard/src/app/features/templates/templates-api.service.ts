import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  AppliedTemplateChangeDto,
  PendingTemplateChangeDto,
  TemplateDto,
  TemplateFitResponse,
  TemplatesFitResponse,
  TemplateRepositorySettings,
  TemplateRepositoryStatus,
  TemplateSyncReport,
} from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

/** Allowlist templates, their repository and its sync. */
@Injectable({ providedIn: 'root' })
export class TemplatesApiService {
  private readonly http = inject(HttpClient);

  list(): Promise<TemplateDto[]> {
    return firstValueFrom(this.http.get<TemplateDto[]>('/api/admin/v1/templates'));
  }

  get(id: string): Promise<TemplateDto> {
    return firstValueFrom(this.http.get<TemplateDto>(`/api/admin/v1/templates/${id}`));
  }

  /** The template's fit per service type for a known client (without `client`: the one written for it; 404 when none). */
  fit(id: string, client?: string | null): Promise<TemplateFitResponse> {
    const params = client ? new HttpParams().set('client', client) : undefined;
    return firstValueFrom(this.http.get<TemplateFitResponse>(`/api/admin/v1/templates/${id}/fit`, { params }));
  }

  /**
   * Every template's fit in one answer (the Templates page): each for the client written for it, or for
   * `client` when named; templates with neither are left out.
   */
  fits(client?: string | null): Promise<TemplatesFitResponse> {
    const params = client ? new HttpParams().set('client', client) : undefined;
    return firstValueFrom(this.http.get<TemplatesFitResponse>('/api/admin/v1/templates/fit', { params }));
  }

  /**
   * The template's block for one service type as the community repository would store it, with the
   * client's missing calls added (its sensitive ones left out) and its unused grants removed: the file's
   * text, byte for byte.
   */
  suggested(id: string, client: string, serviceType: string): Promise<string> {
    return firstValueFrom(
      this.http.get(`/api/admin/v1/templates/${id}/suggested`, {
        params: new HttpParams().set('client', client).set('serviceType', serviceType),
        responseType: 'text',
      }),
    );
  }

  repository(): Promise<TemplateRepositoryStatus> {
    return firstValueFrom(this.http.get<TemplateRepositoryStatus>('/api/admin/v1/settings/template-repository'));
  }

  saveRepository(settings: TemplateRepositorySettings): Promise<TemplateRepositoryStatus> {
    return firstValueFrom(
      this.http.put<TemplateRepositoryStatus>('/api/admin/v1/settings/template-repository', settings),
    );
  }

  /** Widenings of templates in use that syncs held for review. */
  pending(): Promise<PendingTemplateChangeDto[]> {
    return firstValueFrom(this.http.get<PendingTemplateChangeDto[]>('/api/admin/v1/templates/pending'));
  }

  /** Applies a held widening: the template and its proxies get the grants. */
  applyPending(templateId: string): Promise<AppliedTemplateChangeDto> {
    return firstValueFrom(
      this.http.post<AppliedTemplateChangeDto>(`/api/admin/v1/templates/${templateId}/pending/apply`, {}),
    );
  }

  /** Dismisses a held widening: nothing is granted. */
  dismissPending(templateId: string): Promise<void> {
    return firstValueFrom(this.http.post<void>(`/api/admin/v1/templates/${templateId}/pending/dismiss`, {}));
  }

  /** A dry run reports what a sync would do without changing anything. */
  sync(dryRun: boolean): Promise<TemplateSyncReport> {
    return firstValueFrom(
      this.http.post<TemplateSyncReport>('/api/admin/v1/templates/sync', {}, { params: { dryRun: String(dryRun) } }),
    );
  }
}
