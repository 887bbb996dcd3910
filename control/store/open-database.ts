/**
 * Opens the control database: embedded SQLite (@libsql/client) under the data directory by
 * default, or PostgreSQL when a postgres:// URL is given. Migrations run before it is returned.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createClient } from '@libsql/client';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { SvcError } from '../../core/svc-error.js';
import { LibsqlDialect } from './libsql-dialect.js';
import { migrate } from './migrations.js';
import type { ControlDatabase } from './schema.js';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Kysely<ControlDatabase>;
  kind: DatabaseKind;
  /** Where it is, with no password in it (for the start line and logs). */
  describe: string;
}

export interface OpenDatabaseOptions {
  /** Data directory of the embedded database (created when missing). */
  dataDir: string;
  /** postgres://… to use PostgreSQL instead. */
  databaseUrl?: string;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<OpenedDatabase> {
  if (opts.databaseUrl) {
    let url: URL;
    try {
      url = new URL(opts.databaseUrl);
    } catch {
      throw new SvcError('USAGE', 'the database URL is not a URL', { place: { field: 'SVC_DATABASE_URL' } });
    }
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
      throw new SvcError('USAGE', `only postgres:// database URLs are supported, got ${url.protocol}`, {
        place: { field: 'SVC_DATABASE_URL' },
      });
    }
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle pooled connection the server drops (a restart, an admin shutdown: 57P01) is
    // emitted here; without a listener that event would crash the service. The pool has already
    // discarded the connection, and the next query opens a new one and reports its own error.
    pool.on('error', (e: Error & { code?: string }) => {
      process.stderr.write(`warning: PostgreSQL closed an idle connection (${e.code ?? e.message})\n`);
    });
    const db = new Kysely<ControlDatabase>({ dialect: new PostgresDialect({ pool }) });
    await migrate(db as Kysely<unknown>);
    url.password = '';
    url.username = url.username ? url.username : '';
    return { db, kind: 'postgres', describe: `postgres://${url.host}${url.pathname}` };
  }
  const dir = resolve(opts.dataDir);
  // Tokens' hashes, sealed secrets and job reports: the owner's alone (SQLite gives its -wal and
  // -shm files the database file's mode).
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const file = join(dir, 'control.db');
  await writeFile(file, '', { flag: 'a', mode: 0o600 });
  await chmod(file, 0o600);
  const client = createClient({ url: `file:${file}` });
  // WAL lets `svc control token …` write while a running service reads; the busy timeout makes
  // a second process wait for the writer instead of failing with SQLITE_BUSY.
  await client.execute('PRAGMA journal_mode = WAL');
  await client.execute('PRAGMA busy_timeout = 5000');
  await client.execute('PRAGMA foreign_keys = ON');
  const db = new Kysely<ControlDatabase>({ dialect: new LibsqlDialect(client) });
  await migrate(db as Kysely<unknown>);
  return { db, kind: 'sqlite', describe: file };
}
