/**
 * The task stores the end-to-end and durability suites run against, opened the way an
 * application opens them (`openTaskStore`, or `tandem serve --store`): memory, a SQLite file in a
 * fresh temporary directory, and PostgreSQL in a random schema of its own (dropped afterwards)
 * when `TANDEM_TEST_POSTGRES_URL` is set. Without it, PostgreSQL blocks are reported as skipped
 * tests naming the variable.
 */

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { it } from 'vitest';
import { openTaskStore, type TaskStore, type TaskStoreSpec } from '../../src/stores.js';

export type StoreName = 'memory' | 'sqlite' | 'postgres';

export const STORE_NAMES: readonly StoreName[] = ['memory', 'sqlite', 'postgres'];

const postgresUrl = process.env.TANDEM_TEST_POSTGRES_URL;

/** The PostgreSQL URL, or `undefined` when the PostgreSQL variants are skipped. */
export const POSTGRES_URL: string | undefined =
  postgresUrl === undefined || postgresUrl === '' ? undefined : postgresUrl;

export const POSTGRES_SKIP_REASON =
  'PostgreSQL variant skipped: set TANDEM_TEST_POSTGRES_URL ' +
  '(e.g. postgres://postgres@127.0.0.1:5432/test) to run it';

if (POSTGRES_URL === undefined) console.warn(`[tests] ${POSTGRES_SKIP_REASON}`);

export function isStoreAvailable(name: StoreName): boolean {
  return name !== 'postgres' || POSTGRES_URL !== undefined;
}

/**
 * Registers the visible skip of a PostgreSQL block and returns true when PostgreSQL is missing;
 * call it first in the block and return when it answers true.
 */
export function skipWithoutPostgres(name: StoreName = 'postgres'): boolean {
  if (isStoreAvailable(name)) return false;
  it.skip(POSTGRES_SKIP_REASON, () => undefined);
  return true;
}

/** A fresh temporary directory and how to remove it. */
export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'tandem-test-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A PostgreSQL schema of one test: its name, its `--store` URL, and how to drop it. */
export interface TestSchema {
  readonly schema: string;
  /** The URL with `?schema=`, as `tandem serve --store` takes it. */
  readonly storeUrl: string;
  readonly drop: () => Promise<void>;
}

/** A fresh random schema in the test database (created by the first store that opens it). */
export function freshSchema(): TestSchema {
  if (POSTGRES_URL === undefined) throw new Error(POSTGRES_SKIP_REASON);
  const connectionString = POSTGRES_URL;
  const schema = `tandem_test_${randomBytes(6).toString('hex')}`;
  const storeUrl = new URL(connectionString);
  storeUrl.searchParams.set('schema', schema);
  return {
    schema,
    storeUrl: storeUrl.toString(),
    drop: async () => {
      const admin = new Pool({ connectionString, max: 1 });
      try {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** Where a test keeps its tasks, and how to remove what it leaves behind. */
export interface TestStoreSpec {
  readonly spec: TaskStoreSpec;
  /** The same store as `tandem serve --store` takes it. */
  readonly argument: string;
  /** Removes the SQLite directory or drops the PostgreSQL schema (after the store is closed). */
  readonly cleanup: () => Promise<void>;
}

/** A fresh place for the tasks of `name`: nothing is opened yet. */
export async function testStoreSpec(name: StoreName): Promise<TestStoreSpec> {
  switch (name) {
    case 'memory':
      return { spec: { kind: 'memory' }, argument: 'memory', cleanup: () => Promise.resolve() };
    case 'sqlite': {
      const dir = await tempDir();
      const path = join(dir.path, 'tasks.db');
      return { spec: { kind: 'sqlite', path }, argument: `sqlite:${path}`, cleanup: dir.remove };
    }
    case 'postgres': {
      const schema = freshSchema();
      return {
        spec: { kind: 'postgres', connectionString: POSTGRES_URL ?? '', schema: schema.schema },
        argument: schema.storeUrl,
        cleanup: schema.drop,
      };
    }
  }
}

/** A store opened for a test or a block, and how to dispose of it. */
export interface OpenedStore {
  readonly name: StoreName;
  readonly store: TaskStore;
  /** Closes the store and removes its file or schema. */
  dispose(): Promise<void>;
}

/** Opens a fresh store of `name` with `openTaskStore`, as an application does. */
export async function openStore(name: StoreName): Promise<OpenedStore> {
  const { spec, cleanup } = await testStoreSpec(name);
  const store = await openTaskStore(spec);
  return {
    name,
    store,
    dispose: async () => {
      await store.close();
      await cleanup();
    },
  };
}
