/**
 * The store benchmark (`bench/stores.mjs`) in quick mode with 500 tasks, on memory and SQLite,
 * and on PostgreSQL when `TANDEM_TEST_POSTGRES_URL` is set: it finishes, and yields a checked row
 * per store and metric, with its numbers. A test of the harness only — it asserts nothing about
 * speed.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Row = { store: string; metric: string; error?: string } & Record<string, unknown>;

interface StoreResults {
  mode: string;
  stores: Record<string, { status: string; reason?: string; schema?: string }>;
  rows: Row[];
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const POSTGRES_URL = process.env.TANDEM_TEST_POSTGRES_URL || undefined;
const STORES = POSTGRES_URL === undefined ? ['memory', 'sqlite'] : ['memory', 'sqlite', 'postgres'];

/** Metric → the numbers its row must hold. */
const EVERY_STORE: Record<string, string[]> = {
  'bytes-per-task': ['bytesPerTask'],
  'append-sequential': ['appends', 'eventsPerSec', 'p50Ms', 'p99Ms'],
  'append-concurrent': ['appends', 'eventsPerSec', 'p50Ms', 'p99Ms'],
  'list-first': ['samples', 'p50Ms', 'p99Ms'],
  'list-first-context': ['samples', 'p50Ms', 'p99Ms'],
  'list-deep': ['samples', 'p50Ms', 'p99Ms'],
  'list-deep-context': ['samples', 'p50Ms', 'p99Ms'],
};
const POSTGRES_ONLY: Record<string, string[]> = {
  'cross-replica': ['samples', 'p50Ms', 'p99Ms'],
  'cross-process': ['samples', 'p50Ms', 'p99Ms'],
};

function runBench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bench/stores.mjs', ...args],
      { cwd: ROOT, timeout: 55_000, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('bench/stores.mjs --quick', () => {
  let dir: string;
  let run: { code: number; stdout: string; stderr: string };
  let results: StoreResults;

  beforeAll(async () => {
    expect(
      existsSync(join(ROOT, 'dist/stores/memory/memory-task-store.js')),
      'build Tandem first: npm run build',
    ).toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'tandem-bench-stores-test-'));
    run = await runBench([
      '--quick',
      '--tasks',
      '500',
      '--stores',
      STORES.join(','),
      '--out',
      join(dir, 'results.json'),
    ]);
    if (existsSync(join(dir, 'results.json'))) {
      results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as StoreResults;
    }
  }, 60_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes and writes its results', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(results.mode).toBe('quick');
    expect(existsSync(join(dir, 'results.md'))).toBe(true);
    for (const store of STORES) expect(results.stores[store]?.status, store).toBe('measured');
  });

  const cases = STORES.flatMap((store) =>
    Object.entries(store === 'postgres' ? { ...EVERY_STORE, ...POSTGRES_ONLY } : EVERY_STORE).map(
      ([metric, numbers]) => [store, metric, numbers] as const,
    ),
  );

  it.each(cases)('has a %s row for %s', (store, metric, numbers) => {
    const rows = results.rows.filter((r) => r.store === store && r.metric === metric);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.error, `${store} ${metric}`).toBeUndefined();
    for (const name of numbers) {
      expect(Number.isFinite(row[name]), `${store} ${metric}: ${name} = ${String(row[name])}`).toBe(
        true,
      );
    }
  });

  it('reports every measured store in every table', () => {
    for (const heading of ['## Bytes per stored task', '## Appends', '## ListTasks']) {
      expect(run.stdout).toContain(heading);
    }
    for (const label of ['memory', 'SQLite']) expect(run.stdout).toContain(`| ${label} |`);
  });

  it.skipIf(POSTGRES_URL === undefined)('drops its PostgreSQL schema', async () => {
    const schema = results.stores.postgres?.schema;
    expect(schema).toMatch(/^tandem_bench_/);
    const pool = new Pool({ connectionString: POSTGRES_URL, max: 1 });
    try {
      const found = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      expect(found.rowCount).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
