import { MigrationInterface, QueryRunner } from 'typeorm';

export class AdminStaff1795494715492 implements MigrationInterface {
  name = 'AdminStaff1795494715492';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "api_token" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(64) NOT NULL, "role" character varying(16) NOT NULL, "digest" character(64) NOT NULL, "admin_user_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "UQ_api_token_owner_name" UNIQUE ("admin_user_id", "name"), CONSTRAINT "PK_d862311c568d175c26f41bc6f98" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_72a89e689ba1f166e088819ce0" ON "api_token"  ("digest") `);
    await queryRunner.query(`CREATE INDEX "IDX_4d580b9a83236eb86a74e9fa3e" ON "api_token"  ("admin_user_id") `);
    // Every administrator so far (there was one kind) becomes an owner; new accounts always name their role.
    await queryRunner.query(`ALTER TABLE "admin_user" ADD "role" character varying(16) NOT NULL DEFAULT 'owner'`);
    await queryRunner.query(`ALTER TABLE "admin_user" ALTER COLUMN "role" DROP DEFAULT`);
    await queryRunner.query(`ALTER TABLE "admin_user" ADD "oidc_subject" character varying(255)`);
    await queryRunner.query(
      `ALTER TABLE "admin_user" ADD CONSTRAINT "UQ_d2cd429bc3bace72c36819d6e0e" UNIQUE ("oidc_subject")`,
    );
    await queryRunner.query(`ALTER TABLE "admin_session" ADD "ref" uuid NOT NULL DEFAULT gen_random_uuid()`);
    await queryRunner.query(`ALTER TABLE "admin_session" ADD "address" character varying(64)`);
    await queryRunner.query(`ALTER TABLE "admin_user" ALTER COLUMN "password_hash" DROP NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_dc857a87a08c35c1f1c0e47bb3" ON "admin_session"  ("ref") `);
    await queryRunner.query(
      `ALTER TABLE "api_token" ADD CONSTRAINT "FK_4d580b9a83236eb86a74e9fa3e2" FOREIGN KEY ("admin_user_id") REFERENCES "admin_user"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_token" DROP CONSTRAINT "FK_4d580b9a83236eb86a74e9fa3e2"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_dc857a87a08c35c1f1c0e47bb3"`);
    // Accounts without a password (SSO, forward-auth) cannot exist before this migration.
    await queryRunner.query(`DELETE FROM "admin_user" WHERE "password_hash" IS NULL`);
    await queryRunner.query(`ALTER TABLE "admin_user" ALTER COLUMN "password_hash" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "admin_session" DROP COLUMN "address"`);
    await queryRunner.query(`ALTER TABLE "admin_session" DROP COLUMN "ref"`);
    await queryRunner.query(`ALTER TABLE "admin_user" DROP CONSTRAINT "UQ_d2cd429bc3bace72c36819d6e0e"`);
    await queryRunner.query(`ALTER TABLE "admin_user" DROP COLUMN "oidc_subject"`);
    await queryRunner.query(`ALTER TABLE "admin_user" DROP COLUMN "role"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_4d580b9a83236eb86a74e9fa3e"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_72a89e689ba1f166e088819ce0"`);
    await queryRunner.query(`DROP TABLE "api_token"`);
  }
}
