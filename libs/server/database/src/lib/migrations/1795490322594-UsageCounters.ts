import { MigrationInterface, QueryRunner } from 'typeorm';

export class UsageCounters1795490322594 implements MigrationInterface {
  name = 'UsageCounters1795490322594';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "usage_hour" ("proxy_id" uuid NOT NULL, "hour" TIMESTAMP WITH TIME ZONE NOT NULL, "app_id" uuid NOT NULL, "service_id" uuid NOT NULL, "forwarded" integer NOT NULL DEFAULT '0', "refused" integer NOT NULL DEFAULT '0', "errors" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_c9ab39470c4e913406c41326891" PRIMARY KEY ("proxy_id", "hour"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_usage_hour_hour" ON "usage_hour"  ("hour") `);
    await queryRunner.query(
      `CREATE TABLE "usage_route" ("proxy_id" uuid NOT NULL, "hour" TIMESTAMP WITH TIME ZONE NOT NULL, "method" character varying(10) NOT NULL, "route" character varying(512) NOT NULL, "count" integer NOT NULL, "last_seen" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_86658d91f4aae65831e6bdfc17d" PRIMARY KEY ("proxy_id", "hour", "method", "route"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_usage_route_hour" ON "usage_route"  ("hour") `);
    await queryRunner.query(
      `ALTER TABLE "usage_hour" ADD CONSTRAINT "FK_7da149c1a728d1b38cea02f22fe" FOREIGN KEY ("proxy_id") REFERENCES "proxy"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "usage_route" ADD CONSTRAINT "FK_4b3f421fb64b95e9e2bfb3fa0a6" FOREIGN KEY ("proxy_id") REFERENCES "proxy"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "usage_route" DROP CONSTRAINT "FK_4b3f421fb64b95e9e2bfb3fa0a6"`);
    await queryRunner.query(`ALTER TABLE "usage_hour" DROP CONSTRAINT "FK_7da149c1a728d1b38cea02f22fe"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_usage_route_hour"`);
    await queryRunner.query(`DROP TABLE "usage_route"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_usage_hour_hour"`);
    await queryRunner.query(`DROP TABLE "usage_hour"`);
  }
}
