/**
 * The command line of `bench/stores.mjs` (issue #4) and its two parameter sets: the full run
 * (100,000 tasks, seconds per measurement, for a quiet machine) and the quick run (a smoke test of
 * the harness; its numbers say nothing).
 */

import { parseArgs } from 'node:util';
import { UsageError } from './options.mjs';

export { UsageError };

/** The stores the benchmark knows, in the order they run and are reported. */
export const STORE_IDS = Object.freeze(['memory', 'sqlite', 'postgres']);

export const STORE_LABELS = Object.freeze({
  memory: 'memory',
  sqlite: 'SQLite',
  postgres: 'PostgreSQL',
});

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

export const FULL = Object.freeze({
  /** Echo tasks stored before the size and ListTasks measurements. */
  tasks: 100_000,
  /** Tasks per context: the context filter selects this many (1% of 100,000). */
  tasksPerContext: 1000,
  /** Tasks written at once while filling (the PostgreSQL pool serves them in parallel). */
  fillConcurrency: 8,
  pageSize: 50,
  /** The deep page starts this far into the listing (0.9: page 1,800 of 2,000). */
  deepFraction: 0.9,
  listSeconds: 3,
  listMaxSamples: 20_000,
  chunkBytes: 64,
  concurrentTasks: 16,
  appendSeconds: 5,
  /** Chunks per task at most: the echo agent's own limit on `stream <n>`. */
  maxChunksPerTask: 100_000,
  /**
   * Appends per measurement at most: the memory store reaches it in well under a second, and
   * keeps every event of a running task, so time alone would fill the heap.
   */
  maxAppends: 200_000,
  replicaSeconds: 10,
  replicaMaxSamples: 10_000,
  /** A worker (one store) that takes longer than this is killed and reported as failed. */
  workerTimeoutSeconds: 3600,
});

export const QUICK = Object.freeze({
  ...FULL,
  tasks: 5000,
  listSeconds: 0.5,
  listMaxSamples: 2000,
  appendSeconds: 1,
  replicaSeconds: 1,
  replicaMaxSamples: 1000,
  workerTimeoutSeconds: 120,
});

export const HELP = `Usage: node bench/stores.mjs [options]

Measures the task stores of Tandem through the TaskStore API (issue #4): bytes per stored task,
events appended per second, ListTasks page latency, and PostgreSQL's cross-replica event latency.
Runs the built code: build first (npm run build). Each store is measured in a fresh process.

Options:
  --quick             seconds per measurement and ${QUICK.tasks.toLocaleString('en')} tasks: checks the harness, measures nothing
  --stores <ids>      comma-separated, from: ${STORE_IDS.join(', ')} (default: all)
  --tasks <n>         tasks stored before the size and ListTasks measurements (full ${FULL.tasks.toLocaleString('en')}, quick ${QUICK.tasks.toLocaleString('en')})
  --seconds <s>       time of each append, ListTasks and cross-replica measurement
                      (full ${FULL.appendSeconds}, ${FULL.listSeconds} and ${FULL.replicaSeconds}; quick ${QUICK.appendSeconds}, ${QUICK.listSeconds} and ${QUICK.replicaSeconds})
  --out <file>        results JSON (default bench/results/stores-<timestamp>.json; the Markdown goes next to it)
  -h, --help          show this help

PostgreSQL: TANDEM_TEST_POSTGRES_URL (default ${DEFAULT_POSTGRES_URL}); the run uses a fresh
random schema and drops it at the end. An unreachable server is skipped with a message.`;

function positiveNumber(value, name, { integer }) {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(
      `${name} must be a positive ${integer ? 'integer' : 'number'}, got "${value}"`,
    );
  }
  return n;
}

/** Parses the command line into the run's options, or throws a UsageError. */
export function parseStoreOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      stores: { type: 'string' },
      tasks: { type: 'string' },
      seconds: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  const config = { ...(values.quick ? QUICK : FULL) };
  if (values.tasks !== undefined) {
    config.tasks = positiveNumber(values.tasks, '--tasks', { integer: true });
  }
  if (values.seconds !== undefined) {
    const seconds = positiveNumber(values.seconds, '--seconds', { integer: false });
    config.appendSeconds = seconds;
    config.listSeconds = seconds;
    config.replicaSeconds = seconds;
  }
  const stores = values.stores === undefined ? [...STORE_IDS] : values.stores.split(',');
  for (const id of stores) {
    if (!STORE_IDS.includes(id)) {
      throw new UsageError(`Unknown store "${id}"; choose from ${STORE_IDS.join(', ')}`);
    }
  }
  const overridden = values.tasks !== undefined || values.seconds !== undefined;
  return {
    help: values.help === true,
    // A full run with changed parameters is not the full run: label it so.
    mode: values.quick ? 'quick' : overridden ? 'custom' : 'full',
    config,
    // Always in the canonical order, whatever order they were given in.
    stores: STORE_IDS.filter((id) => stores.includes(id)),
    out: values.out,
  };
}
