import { MigrationInterface, QueryRunner } from 'typeorm';

export class ProxyPreviousKey1795493737084 implements MigrationInterface {
  name = 'ProxyPreviousKey1795493737084';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "proxy" ADD "previous_key_digest" character(64)`);
    await queryRunner.query(`ALTER TABLE "proxy" ADD "previous_key_ciphertext" text`);
    await queryRunner.query(`ALTER TABLE "proxy" ADD "previous_key_valid_until" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "proxy" ADD "previous_key_uses" bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE "proxy" ADD "previous_key_last_used_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "proxy" DROP COLUMN "previous_key_last_used_at"`);
    await queryRunner.query(`ALTER TABLE "proxy" DROP COLUMN "previous_key_uses"`);
    await queryRunner.query(`ALTER TABLE "proxy" DROP COLUMN "previous_key_valid_until"`);
    await queryRunner.query(`ALTER TABLE "proxy" DROP COLUMN "previous_key_ciphertext"`);
    await queryRunner.query(`ALTER TABLE "proxy" DROP COLUMN "previous_key_digest"`);
  }
}
