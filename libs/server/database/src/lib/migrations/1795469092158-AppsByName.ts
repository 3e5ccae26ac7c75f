import { MigrationInterface, QueryRunner } from 'typeorm';

export class AppsByName1795469092158 implements MigrationInterface {
  name = 'AppsByName1795469092158';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_app_name_id" ON "app"  ("name", "id") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_app_name_id"`);
  }
}
