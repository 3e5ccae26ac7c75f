import { DestroyRef, inject, Injectable, signal } from '@angular/core';
import { NavigationEnd, Router } from '@angular/router';
import { filter } from 'rxjs';
import { WarningsApiService } from './warnings-api.service';

/** Every minute, besides each navigation (no more often than every 10 s). */
const POLL_MS = 60_000;
const MIN_GAP_MS = 10_000;

/** How many warnings are open, for the navigation: read on navigation and every minute. */
@Injectable({ providedIn: 'root' })
export class OpenWarningsService {
  private readonly api = inject(WarningsApiService);
  /** Null until read (or when it could not be). */
  readonly count = signal<{ count: number; more: boolean } | null>(null);
  private last = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  /** Starts polling for as long as `destroyRef` (the shell) lives. */
  watch(router: Router, destroyRef: DestroyRef): void {
    const subscription = router.events
      .pipe(filter((e) => e instanceof NavigationEnd))
      .subscribe(() => void this.refresh(false));
    this.timer = setInterval(() => void this.refresh(true), POLL_MS);
    destroyRef.onDestroy(() => {
      subscription.unsubscribe();
      clearInterval(this.timer);
    });
    void this.refresh(true);
  }

  async refresh(force = true): Promise<void> {
    const now = Date.now();
    if (!force && now - this.last < MIN_GAP_MS) return;
    this.last = now;
    try {
      this.count.set(await this.api.openCount());
    } catch {
      this.count.set(null);
    }
  }

  /** "Warnings, 12 open" (the navigation link's accessible name). */
  label(): string {
    const open = this.count();
    if (!open) return 'Warnings';
    return `Warnings, ${open.count}${open.more ? '+' : ''} open`;
  }
}
