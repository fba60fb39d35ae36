/**
 * What a PostgreSQL target costs the database during a measured window, beside the server's own
 * CPU (`proc-sampler.mjs`): the CPU time of the database's backends (from /proc, the server
 * running on this machine), the transactions committed in the bench database
 * (`pg_stat_database.xact_commit`, reads included: every statement outside a transaction block
 * is one), and the statements the target sent, by name (counted inside the target by
 * `pg-statement-counter.cjs`). Targets run in a database of their own (`tandem_bench`, created
 * on first use) so that nothing else on the server counts; the readings are taken with a
 * synchronous child process before the window opens and after it closes.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, ProcSampler } from './proc-sampler.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The PostgreSQL server the benchmark uses (its `postgres` database is only administered). */
export const POSTGRES_URL =
  process.env.TANDEM_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** The database the PostgreSQL targets run in. */
export const BENCH_DATABASE = 'tandem_bench';

/** The bench database's URL on the same server. */
export function benchDatabaseUrl() {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${BENCH_DATABASE}`;
  return url.toString();
}

/** Runs `script` (an async function body given `pg` and `url`) in a child; returns its JSON. */
function runSync(script, url) {
  const source = `
    const pg = require(${JSON.stringify(join(ROOT, 'node_modules/pg'))});
    const url = ${JSON.stringify(url)};
    (async () => { ${script} })().then(
      (value) => process.stdout.write(JSON.stringify(value ?? null)),
      (error) => { process.stderr.write(String(error?.message ?? error)); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', source], { encoding: 'utf8' }));
}

/** Creates the bench database when missing; throws when the server cannot be reached. */
export function ensureBenchDatabase() {
  runSync(
    `const c = new pg.Client(url); await c.connect();
     try {
       const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [${JSON.stringify(BENCH_DATABASE)}]);
       if (found.rowCount === 0) await c.query('CREATE DATABASE ${BENCH_DATABASE}');
     } finally { await c.end(); }`,
    POSTGRES_URL,
  );
}

/** Drops a schema of the bench database (a target's, after it stopped). */
export function dropBenchSchema(schema) {
  runSync(
    `const c = new pg.Client(url); await c.connect();
     try { await c.query('DROP SCHEMA IF EXISTS ${schema} CASCADE'); } finally { await c.end(); }`,
    benchDatabaseUrl(),
  );
}

/** The bench database's committed transactions and the pids of its backends, now. */
export function databaseSnapshot() {
  const snapshot = runSync(
    `const c = new pg.Client(url); await c.connect();
     try {
       const stats = await c.query('SELECT xact_commit, tup_inserted, tup_updated, tup_deleted, tup_fetched FROM pg_stat_database WHERE datname = current_database()');
       const pids = await c.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
       return { stats: stats.rows[0], pids: pids.rows.map((r) => r.pid) };
     } finally { await c.end(); }`,
    benchDatabaseUrl(),
  );
  const cpu = {};
  for (const pid of snapshot.pids) cpu[pid] = cpuSeconds(pid);
  return { stats: snapshot.stats, cpu };
}

/** CPU seconds the bench database's backends used between two snapshots. */
export function backendCpuBetween(before, after) {
  let cpu = 0;
  for (const [pid, seconds] of Object.entries(after.cpu)) {
    // A backend that connected in between counts from its start.
    if (Number.isFinite(seconds)) cpu += seconds - (before.cpu[pid] ?? 0);
  }
  return cpu;
}

/** The statement counts the target has appended to its counts file once signaled. */
function statementCounts(pid, file) {
  const before = existsSync(file) ? readFileSync(file, 'utf8').split('\n').length : 0;
  process.kill(pid, 'SIGUSR2');
  const waiter = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 200; i++) {
    const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
    if (lines.length > before) return JSON.parse(lines[lines.length - 2] ?? '{}');
    Atomics.wait(waiter, 0, 0, 10);
  }
  return undefined;
}

/**
 * A {@link ProcSampler} that also reads the database's side. `stop()` adds `db`: backends' CPU
 * seconds, commits, tuples, and statements by name over the window.
 */
export class PostgresSampler extends ProcSampler {
  #pid;
  #countsFile;
  #db0;
  #counts0;

  constructor(pid, countsFile) {
    super(pid);
    this.#pid = pid;
    this.#countsFile = countsFile;
  }

  start() {
    this.#db0 = databaseSnapshot();
    this.#counts0 =
      this.#countsFile === undefined ? undefined : statementCounts(this.#pid, this.#countsFile);
    return super.start();
  }

  stop() {
    const usage = super.stop();
    const counts =
      this.#countsFile === undefined ? undefined : statementCounts(this.#pid, this.#countsFile);
    const db1 = databaseSnapshot();
    const cpu = backendCpuBetween(this.#db0, db1);
    const delta = (field) => Number(db1.stats[field]) - Number(this.#db0.stats[field]);
    let statements;
    if (counts !== undefined && this.#counts0 !== undefined) {
      statements = {};
      for (const [name, count] of Object.entries(counts)) {
        const n = count - (this.#counts0[name] ?? 0);
        if (n > 0) statements[name] = n;
      }
    }
    return {
      ...usage,
      db: {
        backendCpuSeconds: cpu,
        commits: delta('xact_commit'),
        tuplesInserted: delta('tup_inserted'),
        tuplesUpdated: delta('tup_updated'),
        tuplesFetched: delta('tup_fetched'),
        statements,
      },
    };
  }
}

/** Statements that only read, by the names the targets give them (or their first words). */
const READS =
  /^(tandem_get_task|tandem_read_events|tandem_current_seqs|tandem_find_|tandem_push_get|tandem_push_list|tandem_push_task_visible|floor_get|SELECT|WITH page)/;

/** Whether a counted statement writes (and so commits something). */
export function isWrite(name) {
  return !READS.test(name) && !/^(BEGIN|COMMIT|ROLLBACK|LISTEN|UNLISTEN)/.test(name);
}

/**
 * Per-unit figures of a window's database readings (`units` requests, or chunks): backends'
 * CPU ms, transactions committed (reads included: every statement outside a transaction block
 * is one; `pg_stat_database` is flushed by backends at most once a second, so a short window
 * undercounts), statements, and statements that write.
 */
export function perUnit(db, units) {
  if (db === undefined || !(units > 0)) return {};
  const counted = db.statements === undefined ? undefined : Object.entries(db.statements);
  const sum = (entries) => entries.reduce((total, [, n]) => total + n, 0);
  return {
    dbCpuMsPerUnit: (db.backendCpuSeconds * 1000) / units,
    commitsPerUnit: db.commits / units,
    ...(counted === undefined
      ? {}
      : {
          statementsPerUnit: sum(counted) / units,
          writeStatementsPerUnit: sum(counted.filter(([name]) => isWrite(name))) / units,
        }),
  };
}
