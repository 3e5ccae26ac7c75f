import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  NotificationAttemptDto,
  NotificationSettings,
  NotificationSettingsRequest,
  Page,
} from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

const BASE = '/api/admin/v1/settings/notifications';

/** Notification webhooks: the list (URLs masked), saving it whole, test messages and delivery attempts. */
@Injectable({ providedIn: 'root' })
export class NotificationsApiService {
  private readonly http = inject(HttpClient);

  get(): Promise<NotificationSettings> {
    return firstValueFrom(this.http.get<NotificationSettings>(BASE));
  }

  /** Replaces the list: webhooks left out are deleted; a webhook without `url` keeps its URL. */
  save(request: NotificationSettingsRequest): Promise<NotificationSettings> {
    return firstValueFrom(this.http.put<NotificationSettings>(BASE, request));
  }

  /** Sends a test message now; the answer is the attempt, delivered or not. */
  test(id: string): Promise<NotificationAttemptDto> {
    return firstValueFrom(this.http.post<NotificationAttemptDto>(`${BASE}/${id}/test`, {}));
  }

  attempts(id: string, cursor: string | null, limit = 10): Promise<Page<NotificationAttemptDto>> {
    let params = new HttpParams().set('limit', limit);
    if (cursor) params = params.set('cursor', cursor);
    return firstValueFrom(this.http.get<Page<NotificationAttemptDto>>(`${BASE}/${id}/attempts`, { params }));
  }
}
