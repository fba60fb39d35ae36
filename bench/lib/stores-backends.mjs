/**
 * What differs between the stores in `bench/stores.mjs`: how one is opened and closed, and what
 * "the space it takes" means for it — the V8 heap (and RSS) after a full garbage collection for
 * memory, the database file after a WAL checkpoint for SQLite, the schema's tables with their
 * indexes and TOAST for PostgreSQL. Every reading is a delta from the empty store, so the schema
 * and start-up costs cancel out.
 */

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * @typedef {object} Footprint
 * @property {number} bytes the number bytes/task is computed from
 * @property {Record<string, number>} detail other readings, and the size per table
 */

/**
 * @typedef {object} Backend
 * @property {import('../../dist/stores/task-store.js').TaskStore} store
 * @property {string} measuredAs what `bytes` is, for the report
 * @property {() => Promise<Footprint>} footprint
 * @property {() => Promise<void>} [beforeListing] brings the store to its steady state
 * @property {() => Promise<void>} close closes the store and removes what it left behind
 */

async function collectGarbage() {
  if (typeof globalThis.gc !== 'function') {
    throw new Error(
      'the memory store is measured with node --expose-gc (bench/stores.mjs does it)',
    );
  }
  // Twice, a turn apart: the first collection can leave finalizable objects for the second.
  globalThis.gc();
  await nextTurn();
  globalThis.gc();
}

/** @returns {Promise<Backend>} */
async function openMemory(tandem) {
  await collectGarbage();
  return {
    store: new tandem.MemoryTaskStore(),
    measuredAs: 'V8 heap used after GC',
    async footprint() {
      await collectGarbage();
      const usage = process.memoryUsage();
      return { bytes: usage.heapUsed, detail: { rss: usage.rss } };
    },
    async close() {},
  };
}

/** @returns {Promise<Backend>} */
async function openSqlite(tandem) {
  const { default: Database } = await import('better-sqlite3');
  const dir = mkdtempSync(join(tmpdir(), 'tandem-bench-stores-'));
  const path = join(dir, 'tasks.db');
  // The store locks its file while open: measuring closes it and opens it again, behind a
  // stand-in that always forwards to the store currently open.
  let current = tandem.SqliteTaskStore.open({ path });
  const store = new Proxy(
    {},
    {
      get: (_, name) =>
        typeof current[name] === 'function' ? current[name].bind(current) : current[name],
    },
  );
  const sizeOf = (file) => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  return {
    store,
    measuredAs: 'database file after a WAL checkpoint',
    async footprint() {
      await current.close();
      const db = new Database(path);
      try {
        const [row] = db.pragma('wal_checkpoint(TRUNCATE)');
        if (row?.busy !== 0) throw new Error(`WAL checkpoint incomplete: ${JSON.stringify(row)}`);
        const detail = { wal: sizeOf(`${path}-wal`) };
        for (const { name, bytes } of db
          .prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY name')
          .all()) {
          detail[name] = bytes;
        }
        return { bytes: sizeOf(path) + detail.wal, detail };
      } finally {
        db.close();
        current = tandem.SqliteTaskStore.open({ path });
      }
    },
    async close() {
      await current.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** @returns {Promise<Backend>} */
async function openPostgres(tandem, { connectionString, schema }) {
  const { Pool } = await import('pg');
  const store = await tandem.PostgresTaskStore.open({ connectionString, schema });
  const admin = new Pool({ connectionString, max: 1 });
  const tables = async () =>
    (
      await admin.query(
        `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
        [schema],
      )
    ).rows;
  return {
    store,
    measuredAs: "pg_total_relation_size of the schema's tables",
    async footprint() {
      const detail = {};
      let bytes = 0;
      for (const row of await tables()) {
        detail[row.name] = Number(row.bytes);
        bytes += Number(row.bytes);
      }
      return { bytes, detail };
    },
    async beforeListing() {
      // Planner statistics, as autovacuum would have gathered them on a server running a while.
      for (const { name } of await tables()) {
        await admin.query(`ANALYZE "${schema}"."${name}"`);
      }
    },
    async close() {
      await store.close();
      await admin.end();
    },
  };
}

/**
 * Opens the store `id` of the build `tandem`.
 * @returns {Promise<Backend>}
 */
export function openBackend(id, tandem, config) {
  switch (id) {
    case 'memory':
      return openMemory(tandem);
    case 'sqlite':
      return openSqlite(tandem);
    case 'postgres':
      return openPostgres(tandem, config.postgres);
  }
  throw new Error(`unknown store ${id}`);
}

/** Bytes per stored task from the footprints before and after storing `tasks` tasks. */
export function bytesPerTask(before, after, tasks, measuredAs) {
  const row = { metric: 'bytes-per-task', tasks, measuredAs, bytesPerTask: 0, detail: {} };
  row.bytesPerTask = (after.bytes - before.bytes) / tasks;
  for (const [name, value] of Object.entries(after.detail)) {
    row.detail[name] = (value - (before.detail[name] ?? 0)) / tasks;
  }
  return row;
}
