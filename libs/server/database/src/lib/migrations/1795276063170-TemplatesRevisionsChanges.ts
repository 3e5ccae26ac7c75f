import { MigrationInterface, QueryRunner } from 'typeorm';

export class TemplatesRevisionsChanges1795276063170 implements MigrationInterface {
  name = 'TemplatesRevisionsChanges1795276063170';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "change" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "at" TIMESTAMP WITH TIME ZONE NOT NULL, "actor" character varying(100) NOT NULL, "action" character varying(64) NOT NULL, "object_type" character varying(16) NOT NULL, "object_id" uuid, "object_name" character varying(200), "app_id" uuid, "summary" character varying(1000) NOT NULL, CONSTRAINT "PK_38168d337b66a2d98e059fe5820" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_1c64a6b45cbc045529221636e8" ON "change"  ("actor") `);
    await queryRunner.query(`CREATE INDEX "IDX_change_at" ON "change"  ("at", "id") `);
    await queryRunner.query(
      `CREATE TABLE "revision" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "proxy_id" uuid NOT NULL, "kind" character varying(16) NOT NULL, "overrides" jsonb NOT NULL, "active" boolean NOT NULL, "author" character varying(100) NOT NULL, "summary" jsonb NOT NULL, "restored_from" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_f4767cdf0c0e78041514e5a94be" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_revision_proxy_created" ON "revision"  ("proxy_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "template" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(100) NOT NULL, "source" character varying(16) NOT NULL, "removed" boolean NOT NULL DEFAULT false, "blocks" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_a62147c0d6b868e797061e142a1" UNIQUE ("name"), CONSTRAINT "PK_fbae2ac36bd9b5e1e793b957b7f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`ALTER TABLE "proxy" ADD "learning_until" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`CREATE INDEX "IDX_48d2df85cc174d3599fdedbf5c" ON "app"  ("template_id") `);
    await queryRunner.query(
      `ALTER TABLE "revision" ADD CONSTRAINT "FK_cb29aa684c88552f181a51585ef" FOREIGN KEY ("proxy_id") REFERENCES "proxy"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Existing proxies start their history with their current configuration, so that it can be restored.
    await queryRunner.query(
      `INSERT INTO "revision" ("proxy_id", "kind", "overrides", "active", "author", "summary", "created_at") SELECT "id", 'manual', "overrides", "active", 'system', '{"text":"Configuration before revisions were recorded","added":[],"removed":[]}'::jsonb, now() FROM "proxy"`,
    );
    await queryRunner.query(
      `ALTER TABLE "app" ADD CONSTRAINT "FK_48d2df85cc174d3599fdedbf5c6" FOREIGN KEY ("template_id") REFERENCES "template"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "app" DROP CONSTRAINT "FK_48d2df85cc174d3599fdedbf5c6"`);
    await queryRunner.query(`ALTER TABLE "revision" DROP CONSTRAINT "FK_cb29aa684c88552f181a51585ef"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_48d2df85cc174d3599fdedbf5c"`);
    await queryRunner.query(`ALTER TABLE "proxy" DROP COLUMN "learning_until"`);
    await queryRunner.query(`DROP TABLE "template"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_revision_proxy_created"`);
    await queryRunner.query(`DROP TABLE "revision"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_change_at"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_1c64a6b45cbc045529221636e8"`);
    await queryRunner.query(`DROP TABLE "change"`);
  }
}
