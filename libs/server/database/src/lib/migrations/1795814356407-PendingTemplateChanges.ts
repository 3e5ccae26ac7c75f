import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Widenings of templates in use, held for an editor (security 3): one row per template, dropped with it.
 */
export class PendingTemplateChanges1795814356407 implements MigrationInterface {
  name = 'PendingTemplateChanges1795814356407';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pending_template_change" ("template_id" uuid NOT NULL, "blocks" jsonb NOT NULL, "commit" character varying(64), "detected_at" TIMESTAMP WITH TIME ZONE NOT NULL, "dismissed_at" TIMESTAMP WITH TIME ZONE, "dismissed_by" character varying(200), CONSTRAINT "PK_070dc5fce07b6a13f737ec2c8ac" PRIMARY KEY ("template_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "pending_template_change" ADD CONSTRAINT "FK_070dc5fce07b6a13f737ec2c8ac" FOREIGN KEY ("template_id") REFERENCES "template"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pending_template_change" DROP CONSTRAINT "FK_070dc5fce07b6a13f737ec2c8ac"`);
    await queryRunner.query(`DROP TABLE "pending_template_change"`);
  }
}
