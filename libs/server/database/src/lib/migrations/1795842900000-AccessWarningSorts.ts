import { MigrationInterface, QueryRunner } from 'typeorm';

/** The warnings list's sorts by count and by first seen (keyset on the key and the id), as by last seen. */
export class AccessWarningSorts1795842900000 implements MigrationInterface {
  name = 'AccessWarningSorts1795842900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_access_warning_count" ON "access_warning" ("count", "id") `);
    await queryRunner.query(`CREATE INDEX "IDX_access_warning_first_seen" ON "access_warning" ("first_seen", "id") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_access_warning_first_seen"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_access_warning_count"`);
  }
}
