import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A single sign-on identity is (issuer, subject), not the subject alone. Rows linked before have no
 * issuer: a migration cannot read OIDC_ISSUER, so the server binds them to the provider it discovers,
 * at start-up and before any sign-in (`AccountsService.bindLegacyIdentities`); until then they match no
 * identity.
 */
export class SsoIdentityIssuer1795814297478 implements MigrationInterface {
  name = 'SsoIdentityIssuer1795814297478';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "admin_user" DROP CONSTRAINT "UQ_d2cd429bc3bace72c36819d6e0e"`);
    await queryRunner.query(`ALTER TABLE "admin_user" ADD "oidc_issuer" character varying(255)`);
    await queryRunner.query(
      `ALTER TABLE "admin_user" ADD CONSTRAINT "UQ_admin_user_oidc_identity" UNIQUE ("oidc_issuer", "oidc_subject")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "admin_user" DROP CONSTRAINT "UQ_admin_user_oidc_identity"`);
    await queryRunner.query(`ALTER TABLE "admin_user" DROP COLUMN "oidc_issuer"`);
    // One subject under two issuers cannot go back to a column unique on its own: unlink the later.
    await queryRunner.query(
      `UPDATE "admin_user" AS u SET "oidc_subject" = NULL WHERE "oidc_subject" IS NOT NULL AND EXISTS (SELECT 1 FROM "admin_user" AS o WHERE o."oidc_subject" = u."oidc_subject" AND (o."created_at", o."id") < (u."created_at", u."id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "admin_user" ADD CONSTRAINT "UQ_d2cd429bc3bace72c36819d6e0e" UNIQUE ("oidc_subject")`,
    );
  }
}
