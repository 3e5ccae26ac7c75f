import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  ConfigNotifications,
  DeliveryStatus,
  NOTIFICATION_EVENTS,
  NotificationAttemptDto,
  NotificationEventType,
  NotificationFormat,
  NotificationSettings,
  Page,
  WebhookDto,
  WebhookRequest,
} from '@arrbiter/contracts';
import { SecretBox } from '@arrbiter/server/crypto';
import { NOTIFICATION_SETTINGS_LOCK } from '@arrbiter/server/database';
import { ChangesService } from '@arrbiter/server/history';
import { keysetPage, PageQueryDto } from '@arrbiter/server/http';
import { Repository } from 'typeorm';
import { NotificationSettingsDto } from './dto/notification-settings.dto';
import { NotificationAttemptEntity } from './entities/notification-attempt.entity';
import { WebhookEntity } from './entities/webhook.entity';
import { MASK, maskWebhookUrl, MAX_ERROR_LENGTH, webhookUrlProblem } from './webhook-url';

/** The purpose a webhook URL is encrypted for (bound into the ciphertext). */
export const WEBHOOK_URL_PURPOSE = 'notification-webhook-url';
/** Attempts kept per webhook, newest first … */
export const ATTEMPTS_KEPT_PER_WEBHOOK = 500;
/** … and for this long. */
export const ATTEMPTS_KEPT_DAYS = 30;

/** What a delivery needs of a webhook: its URL in the clear (never logged, never answered). */
export interface DeliveryTarget {
  id: string;
  url: string;
  format: NotificationFormat;
  events: NotificationEventType[];
  enabled: boolean;
}

/** One attempt, as it is stored. */
export interface AttemptRecord {
  event: NotificationEventType | 'test';
  at: Date;
  status: DeliveryStatus;
  httpStatus?: number | null;
  error?: string | null;
}

export function toAttemptDto(attempt: AttemptRecord): NotificationAttemptDto {
  return {
    event: attempt.event,
    at: attempt.at.toISOString(),
    status: attempt.status,
    ...(attempt.httpStatus != null ? { httpStatus: attempt.httpStatus } : {}),
    ...(attempt.error ? { error: attempt.error } : {}),
  };
}

const UNREADABLE = '(cannot be decrypted: was SECRET_KEY changed? Enter the URL again)';

const inEventOrder = (events: NotificationEventType[]) => NOTIFICATION_EVENTS.filter((e) => events.includes(e));

function describeList(webhooks: Pick<WebhookEntity, 'format' | 'events' | 'enabled'>[], deleted: number): string {
  const items = webhooks.map(
    (w) =>
      `${w.format} with ${w.events.length} event${w.events.length === 1 ? '' : 's'}${w.enabled ? '' : ' (disabled)'}`,
  );
  const head =
    items.length === 0 ? 'No webhooks' : `${items.length} webhook${items.length === 1 ? '' : 's'}: ${items.join(', ')}`;
  return `${head}${deleted > 0 ? `; ${deleted} deleted` : ''}`;
}

/**
 * The notification webhooks (their URLs encrypted at rest and masked in every answer) and their
 * delivery attempts (kept 30 days, at most 500 per webhook).
 */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectRepository(WebhookEntity) private readonly webhookRepository: Repository<WebhookEntity>,
    @InjectRepository(NotificationAttemptEntity)
    private readonly attemptRepository: Repository<NotificationAttemptEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly secrets: SecretBox,
    private readonly audit: ChangesService,
  ) {}

  private get webhooks(): Repository<WebhookEntity> {
    return this.txHost.tx.withRepository(this.webhookRepository);
  }

  private get attemptsRepository(): Repository<NotificationAttemptEntity> {
    return this.txHost.tx.withRepository(this.attemptRepository);
  }

  async settings(): Promise<NotificationSettings> {
    const rows = await this.webhooks.find({ order: { position: 'ASC', createdAt: 'ASC' } });
    return { webhooks: rows.map((row) => this.toDto(row)) };
  }

  /**
   * Replaces the list in one transaction: a listed `id` updates that webhook (its attempts kept; its
   * URL kept when `url` is left out or sent back masked), no `id` adds one, and the webhooks left out
   * are deleted with their attempts. 400 naming each problem, and nothing changes.
   */
  async save(dto: NotificationSettingsDto, actor: string): Promise<NotificationSettings> {
    await this.txHost.withTransaction(() => this.saveInTransaction(dto.webhooks, actor));
    return this.settings();
  }

  /** `save` in the caller's transaction (a declarative import); 400 naming each problem. */
  async saveInTransaction(webhooks: readonly WebhookRequest[], actor: string): Promise<void> {
    await this.txHost.tx.query('SELECT pg_advisory_xact_lock($1)', [NOTIFICATION_SETTINGS_LOCK]);
    const stored = new Map((await this.webhooks.find()).map((row) => [row.id, row]));
    const problems: string[] = [];
    const listed = new Set<string>();
    const rows = webhooks.map((item, index) => {
      const field = `webhooks.${index}`;
      const current = item.id === undefined ? undefined : stored.get(item.id);
      if (item.id !== undefined) {
        if (!current) problems.push(`${field}.id: no webhook has this id (leave id out to add a webhook)`);
        if (listed.has(item.id)) problems.push(`${field}.id: this webhook is listed twice`);
        listed.add(item.id);
      }
      let urlCiphertext = current?.urlCiphertext;
      if (item.url === undefined) {
        if (!current && item.id === undefined) problems.push(`${field}.url is required for a new webhook`);
      } else if (item.url.includes(MASK)) {
        if (current && this.masked(current) !== item.url)
          problems.push(`${field}.url is a masked URL that is not this webhook's: enter the whole new URL`);
        else if (!current && item.id === undefined)
          problems.push(`${field}.url is a masked URL: enter the whole URL of the new webhook`);
      } else {
        urlCiphertext = this.secrets.encrypt(item.url, WEBHOOK_URL_PURPOSE);
      }
      return this.webhooks.create({
        ...(current ? { id: current.id } : {}),
        urlCiphertext,
        format: item.format,
        events: inEventOrder(item.events),
        enabled: item.enabled,
        position: index,
      });
    });
    if (problems.length > 0) throw new BadRequestException(problems);
    const deleted = [...stored.keys()].filter((id) => !listed.has(id));
    if (deleted.length > 0) await this.webhooks.delete(deleted);
    await this.webhooks.save(rows);
    await this.audit.record({
      actor,
      action: 'settings.notifications-saved',
      objectType: 'settings',
      objectName: 'notifications',
      summary: describeList(rows, deleted.length),
    });
  }

  /** The webhooks as a declarative document lists them: URLs whole with `secrets`, masked otherwise. */
  async document(secrets: boolean): Promise<ConfigNotifications> {
    const rows = await this.webhooks.find({ order: { position: 'ASC', createdAt: 'ASC' } });
    return {
      webhooks: rows.map((row) => ({
        url: secrets ? (this.decrypted(row) ?? UNREADABLE) : this.masked(row),
        format: row.format,
        events: row.events,
        enabled: row.enabled,
      })),
    };
  }

  /**
   * What saving a document's webhooks means: each matched to a stored webhook by its URL (whole, or
   * masked as exported without secrets), so that it keeps its id and attempts; the others new. A
   * masked URL that matches no stored webhook, or a bad URL, is a problem (`webhooks[i].url …`).
   */
  async fromDocument(document: ConfigNotifications): Promise<{ webhooks: WebhookRequest[]; problems: string[] }> {
    const stored = (await this.webhooks.find({ order: { position: 'ASC', createdAt: 'ASC' } })).map((row) => ({
      row,
      url: this.decrypted(row),
    }));
    const used = new Set<string>();
    const problems: string[] = [];
    const webhooks = document.webhooks.map((item, index): WebhookRequest => {
      const masked = item.url.includes(MASK);
      const problem = masked ? null : webhookUrlProblem(item.url);
      if (problem) problems.push(`webhooks[${index}].url ${problem}`);
      const match = stored.find(
        ({ row, url }) =>
          !used.has(row.id) && url !== null && (masked ? maskWebhookUrl(url) === item.url : url === item.url),
      );
      if (masked && !match)
        problems.push(
          `webhooks[${index}].url is masked and matches no webhook here: a new webhook needs its whole URL (export with secrets, or a \${ENV} reference in CONFIG_FILE)`,
        );
      const fields = { format: item.format, events: item.events, enabled: item.enabled };
      if (!match) return { ...fields, ...(masked ? {} : { url: item.url }) };
      used.add(match.row.id);
      return { id: match.row.id, ...fields };
    });
    return { webhooks, problems };
  }

  /** The webhook with its URL in the clear, for a delivery; null when there is none. */
  async forDelivery(id: string): Promise<DeliveryTarget | null> {
    const row = await this.webhooks.findOneBy({ id });
    if (!row) return null;
    return {
      id: row.id,
      url: this.secrets.decrypt(row.urlCiphertext, WEBHOOK_URL_PURPOSE),
      format: row.format,
      events: row.events,
      enabled: row.enabled,
    };
  }

  /** The enabled webhooks and their events: one query. */
  async subscribers(): Promise<{ id: string; events: NotificationEventType[] }[]> {
    return this.webhooks.find({ select: { id: true, events: true }, where: { enabled: true } });
  }

  /** Stores an attempt; one of a webhook deleted meanwhile is left out (the foreign key refuses it). */
  async recordAttempt(webhookId: string, attempt: AttemptRecord): Promise<void> {
    await this.attemptsRepository.query(
      `INSERT INTO notification_attempt (webhook_id, event, at, status, http_status, error)
       SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM notification_webhook WHERE id = $1)`,
      [
        webhookId,
        attempt.event,
        attempt.at,
        attempt.status,
        attempt.httpStatus ?? null,
        attempt.error ? attempt.error.slice(0, MAX_ERROR_LENGTH) : null,
      ],
    );
  }

  /** A webhook's attempts, newest first, a page at a time; 404 for an unknown webhook. */
  async attempts(id: string, query: PageQueryDto): Promise<Page<NotificationAttemptDto>> {
    await this.find(id);
    const qb = this.attemptsRepository.createQueryBuilder('a').where('a.webhook_id = :id', { id });
    return keysetPage(qb, { column: 'a.at', idColumn: 'a.id', at: (a) => a.at }, query, toAttemptDto);
  }

  /** Deletes attempts older than 30 days and beyond the newest 500 of each webhook; how many went. */
  async prune(now: Date): Promise<number> {
    const repository = this.attemptsRepository;
    const before = new Date(now.getTime() - ATTEMPTS_KEPT_DAYS * 86_400_000);
    const [, old] = (await repository.query('DELETE FROM notification_attempt WHERE at < $1', [before])) as [
      unknown,
      number,
    ];
    const [, surplus] = (await repository.query(
      `DELETE FROM notification_attempt AS a USING (
         SELECT id FROM (
           SELECT id, row_number() OVER (PARTITION BY webhook_id ORDER BY at DESC, id DESC) AS n FROM notification_attempt
         ) AS ranked WHERE n > $1
       ) AS surplus WHERE a.id = surplus.id`,
      [ATTEMPTS_KEPT_PER_WEBHOOK],
    )) as [unknown, number];
    return old + surplus;
  }

  /** The webhook, or 404. */
  async find(id: string): Promise<WebhookEntity> {
    const row = await this.webhooks.findOneBy({ id });
    if (!row) throw new NotFoundException('No such webhook');
    return row;
  }

  private toDto(row: WebhookEntity): WebhookDto {
    return { id: row.id, url: this.masked(row), format: row.format, events: row.events, enabled: row.enabled };
  }

  private masked(row: WebhookEntity): string {
    const url = this.decrypted(row);
    return url === null ? UNREADABLE : maskWebhookUrl(url);
  }

  /** The URL, or null when it cannot be decrypted (SECRET_KEY changed). */
  private decrypted(row: WebhookEntity): string | null {
    try {
      return this.secrets.decrypt(row.urlCiphertext, WEBHOOK_URL_PURPOSE);
    } catch {
      return null;
    }
  }
}
