import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  AdminAccountDto,
  ApiTokenDto,
  AuthSessionDto,
  ChangePasswordRequest,
  CreateAdminRequest,
  CreatedTokenResponse,
  CreateTokenRequest,
  UpdateAdminRequest,
} from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

/** Admin staff: one's own account and sessions, API tokens, and (owners) everyone's accounts. */
@Injectable({ providedIn: 'root' })
export class StaffApiService {
  private readonly http = inject(HttpClient);

  sessions(): Promise<AuthSessionDto[]> {
    return firstValueFrom(this.http.get<AuthSessionDto[]>('/api/auth/sessions'));
  }

  endSession(id: string): Promise<void> {
    return firstValueFrom(this.http.delete<void>(`/api/auth/sessions/${id}`));
  }

  /** 403 when the current password is wrong; the other sessions end. */
  changePassword(request: ChangePasswordRequest): Promise<void> {
    return firstValueFrom(this.http.put<void>('/api/auth/password', request));
  }

  tokens(): Promise<ApiTokenDto[]> {
    return firstValueFrom(this.http.get<ApiTokenDto[]>('/api/admin/v1/tokens'));
  }

  /** The answer holds the token: the only time it is shown. */
  createToken(request: CreateTokenRequest): Promise<CreatedTokenResponse> {
    return firstValueFrom(this.http.post<CreatedTokenResponse>('/api/admin/v1/tokens', request));
  }

  revokeToken(id: string): Promise<void> {
    return firstValueFrom(this.http.delete<void>(`/api/admin/v1/tokens/${id}`));
  }

  accounts(): Promise<AdminAccountDto[]> {
    return firstValueFrom(this.http.get<AdminAccountDto[]>('/api/admin/v1/admins'));
  }

  createAccount(request: CreateAdminRequest): Promise<AdminAccountDto> {
    return firstValueFrom(this.http.post<AdminAccountDto>('/api/admin/v1/admins', request));
  }

  /** 409 when it would leave no owner. */
  updateAccount(id: string, request: UpdateAdminRequest): Promise<AdminAccountDto> {
    return firstValueFrom(this.http.patch<AdminAccountDto>(`/api/admin/v1/admins/${id}`, request));
  }

  removeAccount(id: string): Promise<void> {
    return firstValueFrom(this.http.delete<void>(`/api/admin/v1/admins/${id}`));
  }
}
