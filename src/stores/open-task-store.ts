/**
 * Opens a task store from a one-line description, as `tandem serve --store` and `TANDEM_STORE`
 * take it: `memory`, `sqlite:PATH` (or a path ending in `.db`), or a `postgres://` /
 * `postgresql://` connection URL. Store modules are imported only when chosen, so a server on the
 * memory store never loads a database driver.
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
    };

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
  const schema = url.searchParams.get('schema');
  if (schema === null) return { kind: 'postgres', connectionString: value };
  url.searchParams.delete('schema');
  return { kind: 'postgres', connectionString: url.toString(), schema };
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
        const url = new URL(spec.connectionString);
        if (url.password !== '') url.password = '***';
        if (spec.schema !== undefined) url.searchParams.set('schema', spec.schema);
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
      });
    }
    case 'postgres': {
      const { PostgresTaskStore } = await import('./postgres/postgres-task-store.js');
      return PostgresTaskStore.open({
        connectionString: parsed.connectionString,
        ...(parsed.schema === undefined ? {} : { schema: parsed.schema }),
        ...(options.onError === undefined ? {} : { onError: options.onError }),
      });
    }
  }
}
