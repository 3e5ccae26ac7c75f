import { MigrationInterface, QueryRunner } from 'typeorm';

/** The known client an app was connected as (`POST /api/admin/v1/known-clients/:id/connect`, `client:` in CONFIG_FILE). */
export class AppKnownClient1795814600000 implements MigrationInterface {
  name = 'AppKnownClient1795814600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "app" ADD "known_client_id" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "app" DROP COLUMN "known_client_id"`);
  }
}
