import { Injectable, signal } from '@angular/core';

export interface ConfirmRequest {
  title: string;
  message: string;
  /** The confirming button's label ("Delete", "Rotate key"…). */
  confirmLabel: string;
  /** Destructive: the confirming button is drawn as a danger button. */
  danger?: boolean;
  /** What the confirmation is about, one line each, listed under the message (the grants a revoke removes…). */
  items?: readonly string[];
}

interface Pending extends ConfirmRequest {
  resolve: (answer: boolean) => void;
}

/** Asks the administrator to confirm, in the shell's modal dialog. */
@Injectable({ providedIn: 'root' })
export class ConfirmService {
  private readonly current = signal<Pending | null>(null);
  readonly pending = this.current.asReadonly();

  ask(request: ConfirmRequest): Promise<boolean> {
    this.current()?.resolve(false);
    return new Promise<boolean>((resolve) => this.current.set({ ...request, resolve }));
  }

  answer(answer: boolean): void {
    const pending = this.current();
    this.current.set(null);
    pending?.resolve(answer);
  }
}
