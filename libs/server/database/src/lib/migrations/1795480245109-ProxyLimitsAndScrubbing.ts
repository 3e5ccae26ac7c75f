import { MigrationInterface, QueryRunner } from 'typeorm';

export class ProxyLimitsAndScrubbing1795480245109 implements MigrationInterface {
  name = 'ProxyLimitsAndScrubbing1795480245109';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "proxy_defaults" ("id" smallint NOT NULL, "rate_limit_per_minute" integer, "rate_limit_burst" integer, "scrub" boolean NOT NULL DEFAULT true, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1cb34cbd4d873747d35427f29ef" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`ALTER TABLE "proxy" ADD "rate_limit_per_minute" integer`);
    await queryRunner.query(`ALTER TABLE "proxy" ADD "rate_limit_burst" integer`);
    await queryRunner.query(`ALTER TABLE "proxy" ADD "scrub" boolean NOT NULL DEFAULT true`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "proxy" DROP COLUMN "scrub"`);
    await queryRunner.query(`ALTER TABLE "proxy" DROP COLUMN "rate_limit_burst"`);
    await queryRunner.query(`ALTER TABLE "proxy" DROP COLUMN "rate_limit_per_minute"`);
    await queryRunner.query(`DROP TABLE "proxy_defaults"`);
  }
}
