/**
 * The command line of `bench/run.mjs` and the two parameter sets: the full run (the numbers of
 * issue #6, for a quiet machine) and the quick run (seconds per scenario, a smoke test of the
 * harness for CI). Any parameter can be overridden from the command line.
 */

import { parseArgs } from 'node:util';
import { TARGETS } from './targets.mjs';

export const FULL = Object.freeze({
  rounds: 3,
  seconds: 10,
  warmupSeconds: 2,
  connections: 8,
  streamsInFlight: 4,
  chunkBytes: 64,
  manyStreams: 1000,
  slowChunks: 20,
  slowDelayMs: 500,
  memoryTasks: [10_000, 100_000],
  settleMs: 2000,
  coldStarts: 10,
  listFill: 100_000,
  listPageSize: 50,
  pushTasks: 1000,
  pushRate: 200,
  pushPending: [10_000, 100_000],
});

export const QUICK = Object.freeze({
  ...FULL,
  rounds: 1,
  seconds: 2,
  warmupSeconds: 0.5,
  manyStreams: 100,
  slowChunks: 5,
  slowDelayMs: 100,
  memoryTasks: [1000, 5000],
  settleMs: 500,
  coldStarts: 3,
  listFill: 5000,
  pushTasks: 100,
  pushPending: [1000, 5000],
});

export const HELP = `Usage: node bench/run.mjs [options]     (or: npm run bench -- [options])

Runs the benchmark scenarios of bench/README.md against each target, after checking each
target against bench-agent.md. Build Tandem first (npm run build).

Options:
  --quick                 a few seconds per scenario: a smoke test of the harness, not a measurement
  --targets <ids>         comma-separated, from: ${Object.keys(TARGETS).join(', ')} (default: all)
  --scenarios <ids>       comma-separated, from: a, b, c10, c100, c400 (or c), d, e, f, list, g, g-pending,
                          rest-a, rest-b (or rest), grpc-a, grpc-c100 (or grpc) (default: all)
  --rounds <n>            rounds per scenario; targets alternate A B, then B A (full ${FULL.rounds}, quick ${QUICK.rounds})
  --seconds <s>           measured time per load scenario (full ${FULL.seconds}, quick ${QUICK.seconds})
  --warmup <s>            discarded warm-up before each measurement (full ${FULL.warmupSeconds}, quick ${QUICK.warmupSeconds})
  --streams <n>           concurrent streams in scenario d (full ${FULL.manyStreams}, quick ${QUICK.manyStreams})
  --slowstream <n,ms>     chunks and delay of scenario d (full ${FULL.slowChunks},${FULL.slowDelayMs}, quick ${QUICK.slowChunks},${QUICK.slowDelayMs})
  --tasks <n,m>           task counts of scenario e (full ${FULL.memoryTasks.join(',')}, quick ${QUICK.memoryTasks.join(',')})
  --settle <ms>           idle time before reading RSS (full ${FULL.settleMs}, quick ${QUICK.settleMs})
  --cold-starts <n>       spawns in scenario f (full ${FULL.coldStarts}, quick ${QUICK.coldStarts})
  --list-fill <n>         tasks stored before the ListTasks scenario (full ${FULL.listFill}, quick ${QUICK.listFill})
  --push-tasks <n>        tasks with a webhook in scenario g (full ${FULL.pushTasks}, quick ${QUICK.pushTasks})
  --push-rate <n>         tasks/s of scenario g's latency phases (${FULL.pushRate})
  --push-pending <n,m>    task counts of scenario g-pending (full ${FULL.pushPending.join(',')}, quick ${QUICK.pushPending.join(',')})
  --out <file>            results JSON (default bench/results/<timestamp>.json; the Markdown goes next to it)
  --no-pin                do not pin the server and the harness to separate cores
  --profile               run each server with node --cpu-prof; profiles go to <results>/<timestamp>-profiles/
  -h, --help              show this help`;

/** Thrown for a command line that cannot run; the message says what to change. */
export class UsageError extends Error {}

function positive(value, name, { integer = true } = {}) {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(
      `${name} must be a non-negative ${integer ? 'integer' : 'number'}, got "${value}"`,
    );
  }
  return n;
}

function pair(value, name) {
  const parts = value.split(',');
  if (parts.length !== 2)
    throw new UsageError(`${name} takes two comma-separated numbers, got "${value}"`);
  return parts.map((p) => positive(p, name));
}

/** Parses the command line into the run's options, or throws a UsageError. */
export function parseOptions(argv, scenarioIds) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      targets: { type: 'string' },
      scenarios: { type: 'string' },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      streams: { type: 'string' },
      slowstream: { type: 'string' },
      tasks: { type: 'string' },
      settle: { type: 'string' },
      'cold-starts': { type: 'string' },
      'list-fill': { type: 'string' },
      'push-tasks': { type: 'string' },
      'push-rate': { type: 'string' },
      'push-pending': { type: 'string' },
      out: { type: 'string' },
      'no-pin': { type: 'boolean' },
      profile: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  const config = { ...(values.quick ? QUICK : FULL) };
  if (values.rounds !== undefined) config.rounds = Math.max(1, positive(values.rounds, '--rounds'));
  if (values.seconds !== undefined)
    config.seconds = positive(values.seconds, '--seconds', { integer: false });
  if (values.warmup !== undefined)
    config.warmupSeconds = positive(values.warmup, '--warmup', { integer: false });
  if (values.streams !== undefined)
    config.manyStreams = Math.max(1, positive(values.streams, '--streams'));
  if (values.slowstream !== undefined) {
    [config.slowChunks, config.slowDelayMs] = pair(values.slowstream, '--slowstream');
  }
  if (values.tasks !== undefined) {
    config.memoryTasks = pair(values.tasks, '--tasks');
    if (!(config.memoryTasks[0] >= 1 && config.memoryTasks[1] > config.memoryTasks[0])) {
      throw new UsageError(`--tasks needs 1 ≤ n < m, got "${values.tasks}"`);
    }
  }
  if (values.settle !== undefined) config.settleMs = positive(values.settle, '--settle');
  if (values['cold-starts'] !== undefined)
    config.coldStarts = Math.max(1, positive(values['cold-starts'], '--cold-starts'));
  if (values['list-fill'] !== undefined)
    config.listFill = positive(values['list-fill'], '--list-fill');
  if (values['push-tasks'] !== undefined)
    config.pushTasks = Math.max(1, positive(values['push-tasks'], '--push-tasks'));
  if (values['push-rate'] !== undefined)
    config.pushRate = Math.max(1, positive(values['push-rate'], '--push-rate'));
  if (values['push-pending'] !== undefined) {
    config.pushPending = pair(values['push-pending'], '--push-pending');
    if (!(config.pushPending[0] >= 1 && config.pushPending[1] > config.pushPending[0])) {
      throw new UsageError(`--push-pending needs 1 ≤ n < m, got "${values['push-pending']}"`);
    }
  }

  const targets = values.targets === undefined ? Object.keys(TARGETS) : values.targets.split(',');
  for (const id of targets) {
    if (TARGETS[id] === undefined) {
      throw new UsageError(
        `Unknown target "${id}"; choose from ${Object.keys(TARGETS).join(', ')}`,
      );
    }
  }
  let scenarios = scenarioIds;
  if (values.scenarios !== undefined) {
    const wanted = values.scenarios.split(',');
    // A group names every scenario of its family: c (c10, c100, c400), rest (rest-*), grpc (grpc-*).
    const inGroup = (group, id) =>
      group === 'c'
        ? /^c\d/.test(id)
        : (group === 'rest' || group === 'grpc') && id.startsWith(`${group}-`);
    const chosen = (id) => wanted.some((w) => w === id || inGroup(w, id));
    for (const id of wanted) {
      if (!scenarioIds.some((s) => s === id || inGroup(id, s))) {
        throw new UsageError(
          `Unknown scenario "${id}"; choose from ${scenarioIds.join(', ')} (or c, rest, grpc for a family)`,
        );
      }
    }
    scenarios = scenarioIds.filter(chosen);
  }
  const tuned = [
    'rounds',
    'seconds',
    'warmup',
    'streams',
    'slowstream',
    'tasks',
    'settle',
    'cold-starts',
    'list-fill',
    'push-tasks',
    'push-rate',
    'push-pending',
  ];
  const overridden = tuned.some((name) => values[name] !== undefined);
  return {
    help: values.help === true,
    // A full run with changed parameters is not the full run: label it so.
    mode: values.quick ? 'quick' : overridden ? 'custom' : 'full',
    config,
    targets,
    scenarios,
    out: values.out,
    pin: values['no-pin'] !== true,
    profile: values.profile === true,
  };
}
