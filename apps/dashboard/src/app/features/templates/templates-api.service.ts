import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  TemplateDto,
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

  repository(): Promise<TemplateRepositoryStatus> {
    return firstValueFrom(this.http.get<TemplateRepositoryStatus>('/api/admin/v1/settings/template-repository'));
  }

  saveRepository(settings: TemplateRepositorySettings): Promise<TemplateRepositoryStatus> {
    return firstValueFrom(
      this.http.put<TemplateRepositoryStatus>('/api/admin/v1/settings/template-repository', settings),
    );
  }

  /** A dry run reports what a sync would do without changing anything. */
  sync(dryRun: boolean): Promise<TemplateSyncReport> {
    return firstValueFrom(
      this.http.post<TemplateSyncReport>('/api/admin/v1/templates/sync', {}, { params: { dryRun: String(dryRun) } }),
    );
  }
}
