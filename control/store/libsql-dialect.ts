/**
 * A Kysely dialect for @libsql/client (embedded SQLite). Hand-written on purpose: the published
 * @libsql/kysely-libsql is pinned to an old @libsql/client and cannot take the one installed here.
 * It is Kysely's own SqliteAdapter / SqliteQueryCompiler / SqliteIntrospector over a driver that
 * runs each compiled query through the client, with one connection guarded by a mutex so that a
 * transaction owns the database until it ends (SQLite has a single writer anyway).
 */
import type { Client, InArgs, Transaction } from '@libsql/client';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';

class LibsqlConnection implements DatabaseConnection {
  private tx: Transaction | undefined;

  constructor(private readonly client: Client) {}

  async begin(): Promise<void> {
    this.tx = await this.client.transaction('write');
  }

  async commit(): Promise<void> {
    const tx = this.tx;
    this.tx = undefined;
    await tx?.commit();
    tx?.close();
  }

  async rollback(): Promise<void> {
    const tx = this.tx;
    this.tx = undefined;
    await tx?.rollback();
    tx?.close();
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const target = this.tx ?? this.client;
    const result = await target.execute({ sql: compiled.sql, args: compiled.parameters as InArgs });
    const rows = result.rows.map((row) => {
      const plain: Record<string, unknown> = {};
      result.columns.forEach((column, i) => {
        plain[column] = row[i];
      });
      return plain as R;
    });
    return {
      rows,
      numAffectedRows: BigInt(result.rowsAffected),
      ...(result.lastInsertRowid !== undefined ? { insertId: BigInt(result.lastInsertRowid) } : {}),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is not supported by this driver.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the libsql driver does not stream query results');
  }
}

/** A promise chain used as a mutex: one holder of the connection at a time. */
class ConnectionMutex {
  private tail: Promise<void> = Promise.resolve();

  async lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    return release;
  }
}

class LibsqlDriver implements Driver {
  private readonly connection: LibsqlConnection;
  private readonly mutex = new ConnectionMutex();
  private release: (() => void) | undefined;

  constructor(private readonly client: Client) {
    this.connection = new LibsqlConnection(client);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.release = await this.mutex.lock();
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as LibsqlConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as LibsqlConnection).commit();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as LibsqlConnection).rollback();
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    this.client.close();
  }
}

export class LibsqlDialect implements Dialect {
  constructor(private readonly client: Client) {}

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    return new LibsqlDriver(this.client);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
