import { BadRequestException, Injectable } from '@nestjs/common';
import type { ConfigDocument, ConfigImportReport } from '@arrbiter/contracts';
import type { DocumentFile } from '@arrbiter/server/config';
import { SYSTEM_ACTOR } from '@arrbiter/server/history';
import { ConfigExportService } from './config-export.service';
import { ConfigImportService } from './config-import.service';
import {
  DocumentFormat,
  DocumentProblems,
  parseDocumentText,
  refuseReferences,
  resolveReferences,
  serialiseDocument,
  validateDocument,
} from './document/config-document';

/** What an export answers: the media type and the body. */
export interface ExportedDocument {
  type: string;
  body: ConfigDocument | string;
}

/**
 * Declarative configuration for its three callers: the admin API (`/api/admin/v1/config`), the
 * `CONFIG_FILE` applied at start-up and the `export` / `import` commands.
 */
@Injectable()
export class DeclarativeConfigService {
  constructor(
    private readonly exporter: ConfigExportService,
    private readonly importer: ConfigImportService,
  ) {}

  /**
   * `secrets`: keys included; `ownerSecrets` (default: `secrets`, as for the operator's command line):
   * the secrets of owner-only settings (webhook URLs) too, which an editor's export leaves masked.
   */
  export(secrets: boolean, ownerSecrets = secrets): Promise<ConfigDocument> {
    return this.exporter.export({ secrets, ownerSecrets });
  }

  /** The document as JSON (an object Nest serialises) or as YAML text. */
  async exportAs(format: DocumentFormat, secrets: boolean, ownerSecrets = secrets): Promise<ExportedDocument> {
    const document = await this.export(secrets, ownerSecrets);
    return format === 'yaml'
      ? { type: 'application/yaml; charset=utf-8', body: serialiseDocument(document, 'yaml') }
      : { type: 'application/json; charset=utf-8', body: document };
  }

  /** A document an admin sent (JSON or YAML, parsed): validated completely, then applied or compared. */
  async importFromApi(body: unknown, options: { dryRun: boolean; actor: string }): Promise<ConfigImportReport> {
    let document: ConfigDocument;
    try {
      refuseReferences(body);
      document = await validateDocument(body);
    } catch (error) {
      if (error instanceof DocumentProblems) throw new BadRequestException([...error.problems]);
      throw error;
    }
    return this.importer.import(document, { ...options, operator: false, source: 'the admin API' });
  }

  /**
   * The operator's file (`CONFIG_FILE`, `main.js import <file>`): JSON when it is named `.json`, else
   * YAML; its secret references resolved; validated completely, then applied (as `system`) or compared.
   * Throws `DocumentProblems`, or the HTTP exception an API import would answer.
   */
  async importFile(file: DocumentFile, options: { dryRun: boolean; source: string }): Promise<ConfigImportReport> {
    const raw = parseDocumentText(file.text, file.path.toLowerCase().endsWith('.json') ? 'json' : 'yaml');
    const document = await validateDocument(resolveReferences(raw, file.references));
    return this.importer.import(document, {
      dryRun: options.dryRun,
      actor: SYSTEM_ACTOR,
      operator: true,
      source: options.source,
    });
  }
}
