import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795265866730 implements MigrationInterface {
  name = 'Initial1795265866730';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "admin_user" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "username" character varying(64) NOT NULL, "password_hash" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_4d0392574f49340bb75a102b041" UNIQUE ("username"), CONSTRAINT "PK_a28028ba709cd7e5053a86857b4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "admin_session" ("id" character(64) NOT NULL, "admin_user_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "user_agent" character varying(256), CONSTRAINT "PK_031b46c28b79cc8e17984c9f1a2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_18838f203555a6c14dea55389c" ON "admin_session"  ("admin_user_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_200e25258e42cde266a3bd2668" ON "admin_session"  ("expires_at") `);
    await queryRunner.query(
      `ALTER TABLE "admin_session" ADD CONSTRAINT "FK_18838f203555a6c14dea55389cc" FOREIGN KEY ("admin_user_id") REFERENCES "admin_user"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "admin_session" DROP CONSTRAINT "FK_18838f203555a6c14dea55389cc"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_200e25258e42cde266a3bd2668"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_18838f203555a6c14dea55389c"`);
    await queryRunner.query(`DROP TABLE "admin_session"`);
    await queryRunner.query(`DROP TABLE "admin_user"`);
  }
}
