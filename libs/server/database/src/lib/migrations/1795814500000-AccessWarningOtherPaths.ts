import { MigrationInterface, QueryRunner } from 'typeorm';

/** A proxy's "other paths" warning: what was refused past its 200 distinct warning rows (the disk stays bounded). */
export class AccessWarningOtherPaths1795814500000 implements MigrationInterface {
  name = 'AccessWarningOtherPaths1795814500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "access_warning" ADD "other_paths" boolean NOT NULL DEFAULT false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "access_warning" DROP COLUMN "other_paths"`);
  }
}
