import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Several replicas on one database: the sign-in throttle's table (shared by them), and the sequence that numbers change
 * notifications (`ChangeRelay`; written by hand: TypeORM maps no sequences).
 */
export class ReplicaChanges1795481292383 implements MigrationInterface {
  name = 'ReplicaChanges1795481292383';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sign_in_throttle" ("key" character varying(255) NOT NULL, "points" integer NOT NULL DEFAULT '0', "expire" bigint, CONSTRAINT "PK_f838c82d37e24773fc7984a7649" PRIMARY KEY ("key"))`,
    );
    await queryRunner.query(`CREATE SEQUENCE "arrbiter_change_seq"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP SEQUENCE "arrbiter_change_seq"`);
    await queryRunner.query(`DROP TABLE "sign_in_throttle"`);
  }
}
