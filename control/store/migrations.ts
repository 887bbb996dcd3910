/**
 * Schema migrations, run at start with Kysely's Migrator (which takes its own lock, so two
 * replicas starting together on one PostgreSQL migrate once). The same builder calls produce
 * the SQLite and the PostgreSQL DDL.
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import { SvcError } from '../../core/svc-error.js';

const migrations: Record<string, Migration> = {
  '0001-initial': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('workspace')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('workspace_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .execute();
      await db.schema
        .createTable('servers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('repository', 'text', (c) => c.notNull())
        .addColumn('branch', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('webhook_secret_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('deploy_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('server_id', 'text', (c) => c.notNull().references('servers.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .addColumn('last_used_at', 'text')
        .execute();
      await db.schema
        .createTable('import_jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('server_id', 'text', (c) => c.notNull().references('servers.id'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('delivery_id', 'text', (c) => c.unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .addColumn('commit_sha', 'text')
        .addColumn('failed_step', 'text')
        .addColumn('error', 'text')
        .addColumn('summary', 'text')
        .addColumn('progress', 'text')
        .addColumn('report', 'text')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('import_jobs_claim')
        .on('import_jobs')
        .columns(['status', 'created_at'])
        .execute();
      await db.schema
        .createIndex('import_jobs_server')
        .on('import_jobs')
        .columns(['server_id', 'created_at'])
        .execute();
    },
  },
  '0002-source-credentials': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('source_credentials')
        .addColumn('server_id', 'text', (c) => c.primaryKey().references('servers.id'))
        .addColumn('credential_sealed', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0003-token-lifecycle': {
    async up(db: Kysely<unknown>) {
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      await db.schema.alterTable('workspace_tokens').addColumn('expires_at', 'text').execute();
      await db.schema.alterTable('workspace_tokens').addColumn('revoked_at', 'text').execute();
      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('token_id', 'text', (c) => c.notNull().references('workspace_tokens.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_token').on('sessions').column('token_id').execute();
    },
  },
};

/** Every migration, in the order they run. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations).sort();

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrate(db: Kysely<unknown>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'svc_migrations',
    migrationLockTableName: 'svc_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new SvcError(
      'INTERNAL',
      `database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`,
      { cause: error },
    );
  }
}
