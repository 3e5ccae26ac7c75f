import { MigrationInterface, QueryRunner } from 'typeorm';

/** Calls of the proxy route refused with 401, per app (null: unknown app) and hour (`UnauthorizedCounter`). */
export class UnauthorizedUsage1795842897222 implements MigrationInterface {
  name = 'UnauthorizedUsage1795842897222';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "unauthorized_usage" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "hour" TIMESTAMP WITH TIME ZONE NOT NULL, "app_id" uuid, "count" integer NOT NULL DEFAULT '0', "last_seen" TIMESTAMP WITH TIME ZONE NOT NULL, "last_address" character varying(64), "last_user_agent" character varying(200), CONSTRAINT "PK_705ed813c888f25a776c488b5e3" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_unauthorized_usage_unknown_hour" ON "unauthorized_usage"  ("hour") WHERE "app_id" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_unauthorized_usage_app_hour" ON "unauthorized_usage"  ("app_id", "hour") WHERE "app_id" IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_unauthorized_usage_hour" ON "unauthorized_usage"  ("hour") `);
    await queryRunner.query(
      `ALTER TABLE "unauthorized_usage" ADD CONSTRAINT "FK_680cdb5d7e6fbf3fcc4c1abc022" FOREIGN KEY ("app_id") REFERENCES "app"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "unauthorized_usage" DROP CONSTRAINT "FK_680cdb5d7e6fbf3fcc4c1abc022"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_unauthorized_usage_hour"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_unauthorized_usage_app_hour"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_unauthorized_usage_unknown_hour"`);
    await queryRunner.query(`DROP TABLE "unauthorized_usage"`);
  }
}
