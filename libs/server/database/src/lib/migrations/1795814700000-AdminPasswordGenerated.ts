import { MigrationInterface, QueryRunner } from 'typeorm';

/** Whether an account still signs in with a generated password (issue #38: choose your own at first sign-in). */
export class AdminPasswordGenerated1795814700000 implements MigrationInterface {
  name = 'AdminPasswordGenerated1795814700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "admin_user" ADD "password_generated" boolean NOT NULL DEFAULT false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "admin_user" DROP COLUMN "password_generated"`);
  }
}
