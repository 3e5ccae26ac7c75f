import { HttpClient, HttpHeaders, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type { ConfigImportReport } from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

const BASE = '/api/admin/v1/config';

export type ConfigFormat = 'json' | 'yaml';

const MEDIA_TYPES: Record<ConfigFormat, string> = { json: 'application/json', yaml: 'application/yaml' };

/** The declarative configuration document: export (backup) and import (restore, GitOps). */
@Injectable({ providedIn: 'root' })
export class ConfigApiService {
  private readonly http = inject(HttpClient);

  /** The document as text, in the format asked for; with every upstream and proxy key when `secrets`. */
  export(format: ConfigFormat, secrets: boolean): Promise<string> {
    return firstValueFrom(
      this.http.get(`${BASE}/export`, {
        params: new HttpParams().set('secrets', String(secrets)),
        headers: new HttpHeaders({ Accept: MEDIA_TYPES[format] }),
        responseType: 'text',
      }),
    );
  }

  /** Sends a document's text as it is (JSON or YAML): a dry run reports, otherwise it is applied. */
  import(text: string, format: ConfigFormat, dryRun: boolean): Promise<ConfigImportReport> {
    return firstValueFrom(
      this.http.post<ConfigImportReport>(`${BASE}/import`, text, {
        params: new HttpParams().set('dryRun', String(dryRun)),
        headers: new HttpHeaders({ 'Content-Type': MEDIA_TYPES[format] }),
      }),
    );
  }
}
