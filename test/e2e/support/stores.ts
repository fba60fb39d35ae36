/**
 * The task stores the end-to-end suite runs against, opened the way an application opens them:
 * memory, a SQLite file in a fresh temporary directory, and PostgreSQL in a random schema of its
 * own (dropped afterwards) when `TANDEM_TEST_POSTGRES_URL` is set.
 */

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { MemoryTaskStore, type TaskStore } from '../../../src/server.js';
import { PostgresTaskStore } from '../../../src/stores/postgres/postgres-task-store.js';
import { SqliteTaskStore } from '../../../src/stores/sqlite/sqlite-task-store.js';

export type StoreName = 'memory' | 'sqlite' | 'postgres';

export const STORE_NAMES: readonly StoreName[] = ['memory', 'sqlite', 'postgres'];

const postgresUrl = process.env.TANDEM_TEST_POSTGRES_URL;

/** The PostgreSQL URL, or `undefined` when the PostgreSQL variants are skipped. */
export const POSTGRES_URL: string | undefined =
  postgresUrl === undefined || postgresUrl === '' ? undefined : postgresUrl;

export const POSTGRES_SKIP_REASON =
  'PostgreSQL variant skipped: set TANDEM_TEST_POSTGRES_URL ' +
  '(e.g. postgres://postgres@127.0.0.1:5432/test) to run it';

if (POSTGRES_URL === undefined) console.warn(`[e2e] ${POSTGRES_SKIP_REASON}`);

export function isStoreAvailable(name: StoreName): boolean {
  return name !== 'postgres' || POSTGRES_URL !== undefined;
}

/** A store opened for one test file, and how to dispose of it. */
export interface OpenedStore {
  readonly name: StoreName;
  readonly store: TaskStore;
  /** Closes the store and removes its file or schema. */
  dispose(): Promise<void>;
}

/** A fresh schema name, so that parallel files and reruns never share tables. */
export function freshSchema(): string {
  return `tandem_e2e_${randomBytes(6).toString('hex')}`;
}

/** Drops a schema created by a test. */
export async function dropSchema(connectionString: string, schema: string): Promise<void> {
  const admin = new Pool({ connectionString, max: 1 });
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
}

/** A fresh temporary directory and how to remove it. */
export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'tandem-e2e-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export async function openStore(name: StoreName): Promise<OpenedStore> {
  switch (name) {
    case 'memory': {
      const store = new MemoryTaskStore();
      return { name, store, dispose: () => store.close() };
    }
    case 'sqlite': {
      const dir = await tempDir();
      const store = SqliteTaskStore.open({ path: join(dir.path, 'tasks.db') });
      return {
        name,
        store,
        dispose: async () => {
          await store.close();
          await dir.remove();
        },
      };
    }
    case 'postgres': {
      if (POSTGRES_URL === undefined) throw new Error(POSTGRES_SKIP_REASON);
      const connectionString = POSTGRES_URL;
      const schema = freshSchema();
      const store = await PostgresTaskStore.open({ connectionString, schema });
      return {
        name,
        store,
        dispose: async () => {
          await store.close();
          await dropSchema(connectionString, schema);
        },
      };
    }
  }
}
