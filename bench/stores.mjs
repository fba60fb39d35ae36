#!/usr/bin/env node
/**
 * The store benchmarks of issue #4: bytes per stored task, events appended per second, ListTasks
 * page latency at 100,000 tasks, and cross-replica event latency on PostgreSQL — measured on the
 * built stores through the `TaskStore` API, written to exactly as the runtime writes. Each store
 * is measured in a fresh process (`lib/stores-worker.mjs`, under `--expose-gc`), one after the
 * other; this process only orchestrates, reports and cleans up.
 *
 * Usage: `node bench/stores.mjs [--quick] [--stores memory,sqlite,postgres] [--tasks 100000]`;
 * `--help` lists the options. Progress goes to stderr, the Markdown report to stdout.
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_POSTGRES_URL,
  HELP,
  STORE_LABELS,
  UsageError,
  parseStoreOptions,
} from './lib/stores-options.mjs';
import { describeMachine, loadAverage, renderStoresMarkdown } from './lib/stores-report.mjs';
import { DIST, MEMORY_STORE_MODULE } from './lib/stores-workload.mjs';
import { ROOT } from './lib/targets.mjs';

const log = (line) => process.stderr.write(`${line}\n`);
const WORKER = fileURLToPath(new URL('lib/stores-worker.mjs', import.meta.url));

/** The URL without its password, for messages. */
function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an unparsable URL';
  }
}

/**
 * Whether PostgreSQL answers, with its version; a reason to skip it otherwise.
 * @returns {Promise<{ok: true, server: string} | {ok: false, reason: string}>}
 */
async function probePostgres(connectionString) {
  let pool;
  try {
    const { Pool } = await import('pg');
    pool = new Pool({ connectionString, max: 1, connectionTimeoutMillis: 3000 });
    const version = (await pool.query('SHOW server_version')).rows[0].server_version;
    const commit = (await pool.query('SHOW synchronous_commit')).rows[0].synchronous_commit;
    return {
      ok: true,
      server: `PostgreSQL ${version} at ${redact(connectionString)}, synchronous_commit ${commit}`,
    };
  } catch (error) {
    return {
      ok: false,
      reason:
        `no PostgreSQL at ${redact(connectionString)} (${error.message}); ` +
        'set TANDEM_TEST_POSTGRES_URL to a database the benchmark may create a schema in',
    };
  } finally {
    await pool?.end();
  }
}

async function dropSchema(connectionString, schema) {
  const { Pool } = await import('pg');
  const pool = new Pool({ connectionString, max: 1 });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await pool.end();
  }
}

let current;

/**
 * Measures one store in a worker process; resolves to its rows, or rejects with why there are
 * none. The worker is killed after `workerTimeoutSeconds`.
 */
function runWorker(store, config) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', WORKER], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    current = child;
    let answer;
    const timer = setTimeout(() => {
      answer ??= { type: 'error', message: `no result within ${config.workerTimeoutSeconds} s` };
      child.kill('SIGKILL');
    }, config.workerTimeoutSeconds * 1000);
    child.on('message', (message) => (answer ??= message));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      current = undefined;
      if (answer?.type === 'rows') resolve(answer.rows);
      else reject(new Error(answer?.message ?? `the worker exited (${signal ?? code})`));
    });
    child.send({ store, config });
  });
}

async function main(argv) {
  let options;
  try {
    options = parseStoreOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError) && !String(error?.code).startsWith('ERR_PARSE_ARGS'))
      throw error;
    log(`bench/stores: ${error.message}\nRun \`node bench/stores.mjs --help\` for the options.`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const probe = join(DIST, MEMORY_STORE_MODULE);
  if (!existsSync(probe)) {
    log(`bench/stores: ${probe} is missing; build Tandem first with \`npm run build\`.`);
    return 2;
  }

  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const out = options.out ?? join(ROOT, 'bench/results', `stores-${stamp}.json`);
  const connectionString = process.env.TANDEM_TEST_POSTGRES_URL || DEFAULT_POSTGRES_URL;
  const schema = `tandem_bench_${randomBytes(6).toString('hex')}`;
  const results = {
    version: 1,
    kind: 'stores',
    mode: options.mode,
    startedAt: startedAt.toISOString(),
    command: ['node', 'bench/stores.mjs', ...argv].join(' '),
    machine: describeMachine(),
    config: options.config,
    stores: {},
    rows: [],
  };
  log(`bench/stores: ${options.mode} run; stores ${options.stores.join(', ')}`);

  let schemaInUse = false;
  const cleanUp = async () => {
    if (!schemaInUse) return;
    schemaInUse = false;
    try {
      await dropSchema(connectionString, schema);
    } catch (error) {
      log(`bench/stores: could not drop schema ${schema}: ${error.message}; drop it by hand`);
    }
  };
  process.once('SIGINT', () => {
    current?.kill('SIGKILL');
    void cleanUp().finally(() => process.exit(130));
  });

  try {
    for (const store of options.stores) {
      const config = { ...options.config };
      if (store === 'postgres') {
        const reachable = await probePostgres(connectionString);
        if (!reachable.ok) {
          results.stores[store] = { status: 'skipped', reason: reachable.reason };
          log(`bench/stores: PostgreSQL skipped: ${reachable.reason}`);
          continue;
        }
        results.stores[store] = { status: 'measured', server: reachable.server, schema };
        config.postgres = { connectionString, schema };
        schemaInUse = true;
      }
      try {
        const rows = await runWorker(store, config);
        results.stores[store] = { status: 'measured', ...results.stores[store] };
        results.rows.push(...rows.map((row) => ({ store, ...row })));
      } catch (error) {
        results.stores[store] = { status: 'failed', reason: error.message };
        log(`bench/stores: ${STORE_LABELS[store]} failed: ${error.message}`);
      }
      if (store === 'postgres') await cleanUp();
    }
  } finally {
    await cleanUp();
  }

  results.finishedAt = new Date().toISOString();
  results.machine.loadAverageEnd = loadAverage();
  const markdown = renderStoresMarkdown(results);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${out.replace(/\.json$/, '')}.md`, markdown);
  process.stdout.write(markdown);
  log(`bench/stores: results in ${relative(process.cwd(), out)} (and .md)`);
  const failed =
    Object.values(results.stores).some((s) => s.status === 'failed') ||
    results.rows.some((row) => row.error !== undefined);
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
