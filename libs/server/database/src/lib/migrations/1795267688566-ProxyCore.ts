import { MigrationInterface, QueryRunner } from 'typeorm';

export class ProxyCore1795267688566 implements MigrationInterface {
  name = 'ProxyCore1795267688566';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "app" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(100) NOT NULL, "slug" character varying(63) NOT NULL, "template_id" uuid, "active" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_8993112cd607f65268a4f57da39" UNIQUE ("slug"), CONSTRAINT "PK_9478629fc093d229df09e560aea" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "openapi_document" ("service_type" character varying(32) NOT NULL, "api_version" character varying(8) NOT NULL, "document" jsonb NOT NULL, "source" character varying(16) NOT NULL, "route_count" integer NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_b781cd47a7a78f5d657aa46eaf9" PRIMARY KEY ("service_type", "api_version"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "service" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(128) NOT NULL, "type" character varying(32) NOT NULL, "base_url" character varying(2048) NOT NULL, "api_key_ciphertext" text NOT NULL, "api_versions" jsonb NOT NULL, "upstream_version" character varying(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_72731b44fddb375b604cfd740cc" UNIQUE ("base_url"), CONSTRAINT "PK_85a21558c006647cd76fdce044b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "proxy" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "app_id" uuid NOT NULL, "service_id" uuid NOT NULL, "active" boolean NOT NULL DEFAULT true, "key_digest" character(64) NOT NULL, "key_ciphertext" text NOT NULL, "overrides" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_d452ff733874f6f35e6078a34d4" UNIQUE ("key_digest"), CONSTRAINT "UQ_proxy_app_service" UNIQUE ("app_id", "service_id"), CONSTRAINT "PK_581edf779fc90b8d2687c658276" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_8094d401a5ab6ff9a9aa18d5c0" ON "proxy"  ("service_id") `);
    await queryRunner.query(
      `CREATE TABLE "access_warning" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "proxy_id" uuid NOT NULL, "app_id" uuid NOT NULL, "method" character varying(10) NOT NULL, "path" character varying(2048) NOT NULL, "route" character varying(512), "route_key" character varying(2048) NOT NULL, "count" integer NOT NULL, "first_seen" TIMESTAMP WITH TIME ZONE NOT NULL, "last_seen" TIMESTAMP WITH TIME ZONE NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'open', CONSTRAINT "UQ_access_warning_key" UNIQUE ("proxy_id", "method", "route_key"), CONSTRAINT "PK_e2f0306eff9aac89fc4c6b740d1" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_67ec29706fe34ccac00c4275cf" ON "access_warning"  ("app_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_access_warning_last_seen" ON "access_warning"  ("last_seen", "id") `);
    await queryRunner.query(
      `ALTER TABLE "proxy" ADD CONSTRAINT "FK_4b21769d5427f2e185095cfd241" FOREIGN KEY ("app_id") REFERENCES "app"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "proxy" ADD CONSTRAINT "FK_8094d401a5ab6ff9a9aa18d5c00" FOREIGN KEY ("service_id") REFERENCES "service"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "access_warning" ADD CONSTRAINT "FK_d21d316d9c0280948a5a327970e" FOREIGN KEY ("proxy_id") REFERENCES "proxy"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "access_warning" DROP CONSTRAINT "FK_d21d316d9c0280948a5a327970e"`);
    await queryRunner.query(`ALTER TABLE "proxy" DROP CONSTRAINT "FK_8094d401a5ab6ff9a9aa18d5c00"`);
    await queryRunner.query(`ALTER TABLE "proxy" DROP CONSTRAINT "FK_4b21769d5427f2e185095cfd241"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_access_warning_last_seen"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_67ec29706fe34ccac00c4275cf"`);
    await queryRunner.query(`DROP TABLE "access_warning"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_8094d401a5ab6ff9a9aa18d5c0"`);
    await queryRunner.query(`DROP TABLE "proxy"`);
    await queryRunner.query(`DROP TABLE "service"`);
    await queryRunner.query(`DROP TABLE "openapi_document"`);
    await queryRunner.query(`DROP TABLE "app"`);
  }
}
