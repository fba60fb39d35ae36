/**
 * What every part of the PostgreSQL store shares: the pool, the schema-qualified table names, the
 * notification channel, and the transaction helper. The schema is part of every statement's text
 * (rather than a `search_path` setting) so that a statement can never run against the wrong schema,
 * whatever the connection string says.
 */

import { escapeIdentifier, type Pool, type PoolClient } from 'pg';
import { asError, ConfigurationError } from '../../protocol/local-errors.js';

/** Receives errors the store recovered from by itself, e.g. a dropped idle connection. */
export type PostgresErrorHandler = (error: Error) => void;

/** The names a store's statements use, derived from its schema. */
export interface PostgresNames {
  /** The schema, unquoted. */
  readonly schema: string;
  /** The schema, quoted as an identifier. */
  readonly quotedSchema: string;
  /** Quoted, schema-qualified table names. */
  readonly tasks: string;
  readonly events: string;
  readonly history: string;
  readonly artifacts: string;
  readonly parts: string;
  readonly pushConfigs: string;
  /** The heartbeat of each lease holder (see `postgres-leases.ts`). */
  readonly leaseHolders: string;
  readonly migrations: string;
  /**
   * The `LISTEN`/`NOTIFY` channel. Channels are database-wide, so the schema is part of the name:
   * stores on different schemas of one database never hear each other.
   */
  readonly channel: string;
}

/** The state shared by the store's statements. */
export interface PostgresDatabase {
  readonly pool: Pool;
  readonly names: PostgresNames;
  readonly onError: PostgresErrorHandler;
}

/**
 * Schema names are limited to what needs no case folding and leaves room for the channel suffix
 * within PostgreSQL's 63-byte identifier limit.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** Checks a schema name and derives the names of the store's tables and channel. */
export function postgresNames(schema: string): PostgresNames {
  if (!SCHEMA_NAME.test(schema)) {
    throw new ConfigurationError(
      `PostgreSQL schema name "${schema}" is not valid; use 1 to 48 lowercase letters, digits ` +
        'or underscores, starting with a letter or an underscore',
    );
  }
  const s = escapeIdentifier(schema);
  return {
    schema,
    quotedSchema: s,
    tasks: `${s}.tasks`,
    events: `${s}.task_events`,
    history: `${s}.task_history`,
    artifacts: `${s}.task_artifacts`,
    parts: `${s}.task_artifact_parts`,
    pushConfigs: `${s}.push_configs`,
    leaseHolders: `${s}.lease_holders`,
    migrations: `${s}.tandem_migrations`,
    channel: `${schema}_task_changes`,
  };
}

/**
 * Runs `work` in a transaction on one pooled connection: commits when it resolves, rolls back
 * when it rejects and rethrows its error. A failed rollback leaves the connection in an unknown
 * state, so it is destroyed rather than returned to the pool, and that failure goes to `onError`
 * (the caller still sees the original error).
 */
export async function withTransaction<T>(
  db: PostgresDatabase,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await db.pool.connect();
  let result: T;
  try {
    await client.query('BEGIN');
    result = await work(client);
    await client.query('COMMIT');
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      client.release(asError(rollbackError));
      db.onError(asError(rollbackError));
      throw error;
    }
    client.release();
    throw error;
  }
  client.release();
  return result;
}

/** `bigint` columns arrive as strings (they may exceed 2^53); ours never do. */
export function toNumber(value: string | number): number {
  return typeof value === 'number' ? value : Number(value);
}

/** The SQLSTATE of a unique constraint violation. */
export const UNIQUE_VIOLATION = '23505';

/** True for a PostgreSQL error with the given SQLSTATE. */
export function hasSqlState(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
