import { MigrationInterface, QueryRunner } from 'typeorm';

export class NotificationsAndServiceHealth1795494099845 implements MigrationInterface {
  name = 'NotificationsAndServiceHealth1795494099845';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "service_health" ("service_id" uuid NOT NULL, "reachable" boolean NOT NULL, "error" character varying(300), "checked_at" TIMESTAMP WITH TIME ZONE NOT NULL, "since" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_7b268e79d86005eb1edbc501099" PRIMARY KEY ("service_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "notification_webhook" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "url_ciphertext" text NOT NULL, "format" character varying(16) NOT NULL, "events" jsonb NOT NULL, "enabled" boolean NOT NULL, "position" smallint NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e61b161c92ae19111e1135a1796" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "notification_attempt" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "webhook_id" uuid NOT NULL, "event" character varying(32) NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, "status" character varying(16) NOT NULL, "http_status" smallint, "error" character varying(300), CONSTRAINT "PK_f77a48c4e0332fdb9a5e6c7473d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_notification_attempt_at" ON "notification_attempt"  ("at") `);
    await queryRunner.query(
      `CREATE INDEX "IDX_notification_attempt_webhook_at" ON "notification_attempt"  ("webhook_id", "at", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "service_health" ADD CONSTRAINT "FK_7b268e79d86005eb1edbc501099" FOREIGN KEY ("service_id") REFERENCES "service"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_attempt" ADD CONSTRAINT "FK_094d433a764f00aeb53d706c155" FOREIGN KEY ("webhook_id") REFERENCES "notification_webhook"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "notification_attempt" DROP CONSTRAINT "FK_094d433a764f00aeb53d706c155"`);
    await queryRunner.query(`ALTER TABLE "service_health" DROP CONSTRAINT "FK_7b268e79d86005eb1edbc501099"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_notification_attempt_webhook_at"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_notification_attempt_at"`);
    await queryRunner.query(`DROP TABLE "notification_attempt"`);
    await queryRunner.query(`DROP TABLE "notification_webhook"`);
    await queryRunner.query(`DROP TABLE "service_health"`);
  }
}
