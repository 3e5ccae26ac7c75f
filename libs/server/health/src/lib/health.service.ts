import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

const READY_TIMEOUT_MS = 2_000;

@Injectable()
export class HealthService {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether `SELECT 1` comes back within two seconds. */
  async databaseAnswers(): Promise<boolean> {
    if (!this.dataSource.isInitialized) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
    });
    const probe = this.dataSource.query('SELECT 1').then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
