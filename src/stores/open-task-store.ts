/**
 * Opens a task store from a one-line description, as `tandem serve --store` and `TANDEM_STORE`
 * take it: `memory`, `sqlite:PATH` (or a path ending in `.db`), or a `postgres://` /
 * `postgresql://` connection URL. Store modules are imported only when chosen, so a server on the
 * memory store never loads a database driver.
 *
 * A PostgreSQL URL may carry, besides libpq's own parameters, the store's: `schema` (the schema
 * of its tables), `pool` (pooled connections; else `TANDEM_POSTGRES_POOL`, else the store's
 * default), `listen_url` (a direct connection for `LISTEN`, when the URL is a transaction
 * pooler's) and `prepared` (`true`/`false`: named statements; off by default with `listen_url`).
 */

import { ConfigurationError } from '../protocol/local-errors.js';
import { MemoryTaskStore } from './memory/memory-task-store.js';
import type { TaskStore } from './task-store.js';

/** A parsed store description. */
export type TaskStoreSpec =
  | { readonly kind: 'memory' }
  | { readonly kind: 'sqlite'; readonly path: string }
  | {
      readonly kind: 'postgres';
      readonly connectionString: string;
      /** From a `schema` query parameter of the URL: the PostgreSQL schema holding the tables. */
      readonly schema?: string;
      /** From `pool`: the most pooled connections. */
      readonly poolSize?: number;
      /** From `listen_url`: where the change listener connects instead. */
      readonly listenConnectionString?: string;
      /** From `prepared`: whether statements are named (prepared). */
      readonly preparedStatements?: boolean;
    };

/** The environment variable giving the PostgreSQL pool size when the URL has no `pool`. */
export const POSTGRES_POOL_ENV = 'TANDEM_POSTGRES_POOL';

/** Parses a store description; throws `ConfigurationError` saying what is accepted. */
export function parseTaskStoreSpec(spec: string): TaskStoreSpec {
  const value = spec.trim();
  if (value === 'memory') return { kind: 'memory' };
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length);
    if (path === '')
      throw new ConfigurationError('--store sqlite: needs a file path, e.g. sqlite:./tandem.db');
    return { kind: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(value)) return parsePostgresSpec(value);
  if (value.endsWith('.db') || value.endsWith('.sqlite')) return { kind: 'sqlite', path: value };
  throw new ConfigurationError(
    `Unknown task store "${spec}": use memory, sqlite:PATH or a postgres:// URL`,
  );
}

function parsePostgresSpec(value: string): TaskStoreSpec {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(
      `--store ${value.split('@').pop() ?? ''} is not a valid postgres:// URL`,
    );
  }
  const take = (name: string): string | undefined => {
    const found = url.searchParams.get(name);
    url.searchParams.delete(name);
    return found ?? undefined;
  };
  const schema = take('schema');
  const pool = take('pool');
  const listenUrl = take('listen_url');
  const prepared = take('prepared');
  if (listenUrl !== undefined && !/^postgres(ql)?:\/\//.test(listenUrl)) {
    throw new ConfigurationError('--store ?listen_url= must be a postgres:// URL');
  }
  if (prepared !== undefined && prepared !== 'true' && prepared !== 'false') {
    throw new ConfigurationError(`--store ?prepared= must be true or false; got "${prepared}"`);
  }
  return {
    kind: 'postgres',
    connectionString:
      schema === undefined &&
      pool === undefined &&
      listenUrl === undefined &&
      prepared === undefined
        ? value
        : url.toString(),
    ...(schema === undefined ? {} : { schema }),
    ...(pool === undefined ? {} : { poolSize: poolSizeOf(pool, '--store ?pool=') }),
    ...(listenUrl === undefined ? {} : { listenConnectionString: listenUrl }),
    ...(prepared === undefined ? {} : { preparedStatements: prepared === 'true' }),
  };
}

function poolSizeOf(value: string, source: string): number {
  const size = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(size) || size < 1) {
    throw new ConfigurationError(
      `${source} must be a positive whole number of connections; got "${value}"`,
    );
  }
  return size;
}

/** Hides the password of a URL, for logs. */
function withoutPassword(value: string): string {
  const url = new URL(value);
  if (url.password !== '') url.password = '***';
  return url.toString();
}

/** Describes a store for logs without its credentials. */
export function describeTaskStoreSpec(spec: TaskStoreSpec): string {
  switch (spec.kind) {
    case 'memory':
      return 'memory';
    case 'sqlite':
      return `sqlite:${spec.path}`;
    case 'postgres': {
      try {
        const url = new URL(withoutPassword(spec.connectionString));
        if (spec.schema !== undefined) url.searchParams.set('schema', spec.schema);
        if (spec.poolSize !== undefined) url.searchParams.set('pool', String(spec.poolSize));
        if (spec.listenConnectionString !== undefined) {
          url.searchParams.set('listen_url', withoutPassword(spec.listenConnectionString));
        }
        if (spec.preparedStatements !== undefined) {
          url.searchParams.set('prepared', String(spec.preparedStatements));
        }
        return url.toString();
      } catch {
        return 'postgres (unparsable URL)';
      }
    }
  }
}

/** Options of {@link openTaskStore}. */
export interface OpenTaskStoreOptions {
  /**
   * Receives background failures of the store: a dropped PostgreSQL listener connection, a failed
   * flush of the SQLite WAL.
   */
  readonly onError?: ((error: Error) => void) | undefined;
  /**
   * Told once when opening waits for another process that holds the store (a SQLite file locked
   * by a server still running); the message names the file.
   */
  readonly onWaiting?: ((message: string) => void) | undefined;
}

/** Opens the store a description names, creating or migrating its schema as needed. */
export async function openTaskStore(
  spec: string | TaskStoreSpec,
  options: OpenTaskStoreOptions = {},
): Promise<TaskStore> {
  const parsed = typeof spec === 'string' ? parseTaskStoreSpec(spec) : spec;
  switch (parsed.kind) {
    case 'memory':
      return new MemoryTaskStore();
    case 'sqlite': {
      const { SqliteTaskStore } = await import('./sqlite/sqlite-task-store.js');
      return SqliteTaskStore.open({
        path: parsed.path,
        ...(options.onError === undefined ? {} : { onError: options.onError }),
        ...(options.onWaiting === undefined ? {} : { onWaiting: options.onWaiting }),
      });
    }
    case 'postgres': {
      const { PostgresTaskStore } = await import('./postgres/postgres-task-store.js');
      const fromEnv = process.env[POSTGRES_POOL_ENV];
      const poolSize =
        parsed.poolSize ??
        (fromEnv === undefined || fromEnv === ''
          ? undefined
          : poolSizeOf(fromEnv, POSTGRES_POOL_ENV));
      return PostgresTaskStore.open({
        connectionString: parsed.connectionString,
        ...(parsed.schema === undefined ? {} : { schema: parsed.schema }),
        ...(poolSize === undefined ? {} : { poolSize }),
        ...(parsed.listenConnectionString === undefined
          ? {}
          : { listenConnectionString: parsed.listenConnectionString }),
        ...(parsed.preparedStatements === undefined
          ? {}
          : { preparedStatements: parsed.preparedStatements }),
        ...(options.onError === undefined ? {} : { onError: options.onError }),
      });
    }
  }
}
