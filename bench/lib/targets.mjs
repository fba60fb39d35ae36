/**
 * The servers under test ("targets") and their lifecycle. Each measurement gets a fresh process,
 * pinned to its own core when `taskset` is available, started with `PORT` (or `--port`) on
 * loopback and declared ready when its agent card answers. What a target is — a command line —
 * lives here only; scenarios see a running server with a pid, a JSON-RPC URL, the REST URL its
 * card names and, when a gRPC port was asked for, that port.
 */

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { get } from './json-rpc.mjs';
import { benchDatabaseUrl, dropBenchSchema } from './pg-sampler.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The Tandem build under test: `dist/` of this checkout, or another build named by
 * `TANDEM_BENCH_DIST` (a copy of a baseline's `dist/`, say, placed where `node_modules` resolves).
 * Builds before the CommonJS bundles have `cli/main.js` instead of `cli/main.cjs`.
 */
const TANDEM_DIST = process.env.TANDEM_BENCH_DIST || join(ROOT, 'dist');
export const TANDEM_MAIN = existsSync(join(TANDEM_DIST, 'cli/main.cjs'))
  ? join(TANDEM_DIST, 'cli/main.cjs')
  : join(TANDEM_DIST, 'cli/main.js');

function tandemArgs(port, store, grpcPort) {
  return [
    TANDEM_MAIN,
    'serve',
    '--agent',
    'echo',
    '--store',
    store,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'silent',
    ...(grpcPort === undefined ? [] : ['--grpc-port', String(grpcPort)]),
  ];
}

let tandemGrpc;

/**
 * Why the Tandem build under test cannot serve gRPC, or undefined when it can: builds before the
 * gRPC binding have no `--grpc-port`, and their gRPC rows say "not available" rather than fail.
 */
function tandemGrpcUnavailable() {
  if (tandemGrpc === undefined) {
    let help = '';
    try {
      help = execFileSync(process.execPath, [TANDEM_MAIN, 'serve', '--help'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      help = `${error.stdout ?? ''}`;
    }
    tandemGrpc = help.includes('--grpc-port')
      ? { unavailable: undefined }
      : { unavailable: 'this build of `tandem serve` has no --grpc-port' };
  }
  return tandemGrpc.unavailable;
}

let sqliteFiles = 0;
let postgresSchemas = 0;

const PG_COUNTER = join(ROOT, 'bench/lib/pg-statement-counter.cjs');

/**
 * A fresh schema of the bench database for one PostgreSQL target process, its statement-counts
 * file, and how to remove both after the process stopped.
 */
function postgresPlace(prefix) {
  const schema = `${prefix}_${process.pid}_${postgresSchemas++}`;
  const countsFile = join(tmpdir(), `${schema}.counts`);
  rmSync(countsFile, { force: true });
  return {
    schema,
    countsFile,
    cleanup: () => {
      rmSync(countsFile, { force: true });
      dropBenchSchema(schema);
    },
  };
}

/**
 * The benchmark is one client at thousands of requests per second: the per-caller abuse limits
 * that `tandem serve` applies by default are off (an environment variable, which builds older
 * than the limits ignore).
 */
// Scenario g delivers webhooks to receivers on loopback, which the SSRF guard refuses otherwise.
const UNLIMITED = { TANDEM_LIMITS: 'off', TANDEM_PUSH_ALLOW: '127.0.0.1' };

/**
 * @typedef {object} TargetDefinition
 * @property {string} id
 * @property {string} label
 * @property {string} [note] shown next to the target's numbers
 * @property {(port: number, grpcPort?: number) => {args: string[], env?: Record<string, string>, cleanup?: () => void}} command
 *   `grpcPort` is given only to a target with `grpc`, for the scenarios that use gRPC; the others
 *   start without it, so that gRPC costs their numbers nothing
 * @property {{unavailable: () => string | undefined}} [grpc] the target can serve gRPC; when
 *   `unavailable()` names a reason, this build of it cannot
 */

/** @type {Record<string, TargetDefinition>} */
export const TARGETS = {
  floor: {
    id: 'floor',
    label: 'floor (node:http)',
    command: (port, grpcPort) => ({
      args: [join(ROOT, 'bench/targets/floor-server.mjs')],
      env: {
        PORT: String(port),
        ...(grpcPort === undefined ? {} : { GRPC_PORT: String(grpcPort) }),
      },
    }),
    grpc: { unavailable: () => undefined },
  },
  'a2a-js': {
    id: 'a2a-js',
    label: 'a2a-js 1.3 (memory)',
    command: (port, grpcPort) => ({
      args: [join(ROOT, 'bench/targets/a2a-js-server.mjs')],
      env: {
        PORT: String(port),
        ...(grpcPort === undefined ? {} : { GRPC_PORT: String(grpcPort) }),
      },
    }),
    grpc: { unavailable: () => undefined },
  },
  tandem: {
    id: 'tandem',
    label: 'Tandem (memory)',
    command: (port, grpcPort) => ({ args: tandemArgs(port, 'memory', grpcPort), env: UNLIMITED }),
    grpc: { unavailable: tandemGrpcUnavailable },
  },
  'tandem-sqlite': {
    id: 'tandem-sqlite',
    label: 'Tandem (SQLite)',
    note: 'tasks on disk (SQLite, a fresh file per process); RSS is not its task memory',
    command: (port) => {
      const file = join(tmpdir(), `tandem-bench-${process.pid}-${sqliteFiles++}.db`);
      const cleanup = () => {
        for (const suffix of ['', '-wal', '-shm', '-journal'])
          rmSync(file + suffix, { force: true });
      };
      cleanup();
      return { args: tandemArgs(port, `sqlite:${file}`), env: UNLIMITED, cleanup };
    },
  },
  'tandem-postgres': {
    id: 'tandem-postgres',
    label: 'Tandem (PostgreSQL)',
    note: 'tasks in PostgreSQL on this machine (a fresh schema of database tandem_bench per process); the database shares the cores',
    postgres: true,
    command: (port) => {
      const place = postgresPlace('tandem_bench');
      const url = new URL(benchDatabaseUrl());
      url.searchParams.set('schema', place.schema);
      return {
        args: ['-r', PG_COUNTER, ...tandemArgs(port, url.toString())],
        env: { ...UNLIMITED, TANDEM_BENCH_PG_COUNTS: place.countsFile },
        cleanup: place.cleanup,
        countsFile: place.countsFile,
      };
    },
  },
  'floor-postgres': {
    id: 'floor-postgres',
    label: 'floor (node:http + pg)',
    note: 'one statement and one commit per request: a task row and its events',
    postgres: true,
    command: (port) => {
      const place = postgresPlace('tandem_bench_floor');
      return {
        args: ['-r', PG_COUNTER, join(ROOT, 'bench/targets/floor-postgres-server.mjs')],
        env: {
          PORT: String(port),
          PGURL: benchDatabaseUrl(),
          PGSCHEMA: place.schema,
          TANDEM_BENCH_PG_COUNTS: place.countsFile,
        },
        cleanup: place.cleanup,
        countsFile: place.countsFile,
      };
    },
  },
};

/**
 * Where the server and the harness run. With `taskset` and at least two cores the server gets
 * core 1 and the harness (load generator, SSE client) core 0, so that they never share a core.
 * @returns {{serverCore: number, harnessCore: number} | null}
 */
export function detectPinning() {
  if (process.platform !== 'linux' || availableParallelism() < 2) return null;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return { serverCore: 1, harnessCore: 0 };
  } catch {
    return null;
  }
}

/** Pins every thread of this process (the harness) to its core. */
export function pinHarness(pinning) {
  execFileSync('taskset', ['-a', '-p', '-c', String(pinning.harnessCore), String(process.pid)], {
    stdio: 'ignore',
  });
}

/** A free loopback port (closed again before the target binds it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

/** The card's A2A 1.0 interface of `binding` (`JSONRPC`, `HTTP+JSON`, `GRPC`), or undefined. */
export function interfaceOf(card, binding) {
  const entry = card?.supportedInterfaces?.find(
    (i) => i?.protocolBinding === binding && i?.protocolVersion === '1.0',
  );
  return typeof entry?.url === 'string' ? entry : undefined;
}

/**
 * The path (and query) of a card's HTTP interface of `binding`, or undefined. The harness uses
 * it on the host:port it started the target on, so the card may say `localhost` or any host.
 */
function httpPathOf(card, binding) {
  const entry = interfaceOf(card, binding);
  if (entry === undefined) return undefined;
  try {
    const url = new URL(entry.url);
    return url.pathname + url.search;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC path (and query) a card declares (bench-agent.md point 2), or undefined. */
export function jsonRpcPathOf(card) {
  return httpPathOf(card, 'JSONRPC');
}

/**
 * The base path of a card's HTTP+JSON interface, without a trailing `/` ('' for the root, as in
 * `http://host:port`), or undefined: the routes (`/message:send`…) are appended to it.
 */
export function restPathOf(card) {
  return httpPathOf(card, 'HTTP+JSON')?.replace(/\/$/, '');
}

/**
 * Spawns a target's process (pinned when `pinning` is set) without waiting for it. The child's
 * output is kept (the last few KB) for error messages; it must be drained so that a chatty
 * server cannot block on a full pipe. `onOutput` sees all of it, as text, as it comes.
 */
export function spawnTarget(
  target,
  port,
  { pinning = null, nodeFlags = [], grpcPort, onOutput } = {},
) {
  const { args, env = {}, cleanup, countsFile } = target.command(port, grpcPort);
  const nodeArgs = [...nodeFlags, ...args];
  const child =
    pinning === null
      ? spawn(process.execPath, nodeArgs, { env: { ...process.env, ...env }, stdio: 'pipe' })
      : spawn('taskset', ['-c', String(pinning.serverCore), process.execPath, ...nodeArgs], {
          env: { ...process.env, ...env },
          stdio: 'pipe',
        });
  let output = '';
  const keep = (chunk) => {
    const text = chunk.toString();
    output = (output + text).slice(-4096);
    onOutput?.(text);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.stdin.end();
  const proc = {
    child,
    exited: undefined,
    output: () => output,
    cleanup: cleanup ?? (() => {}),
    countsFile,
  };
  live.add(proc);
  proc.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(proc);
      resolve({ code, signal });
    }),
  );
  return proc;
}

/** Servers still running; killed if the harness itself dies, so that none outlives it. */
const live = new Set();
process.on('exit', () => {
  for (const proc of live) {
    proc.child.kill('SIGKILL');
    proc.cleanup();
  }
});

/**
 * @typedef {object} RunningTarget
 * @property {TargetDefinition} target
 * @property {number} pid
 * @property {string} baseUrl
 * @property {string} cardUrl
 * @property {string} rpcUrl
 * @property {string | undefined} restUrl the card's HTTP+JSON base on this host:port, if it has one
 * @property {number | undefined} grpcPort the gRPC port, when one was asked for
 * @property {object} card
 * @property {() => Promise<{exitMs: number, killed: boolean}>} stop
 */

/** True once something accepts TCP connections on the loopback `port`. */
function listening(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts a target and waits until its agent card answers 200 (polling, since a server has no
 * common way to say it is ready) and, with `grpc`, until its gRPC port accepts connections too.
 * @returns {Promise<RunningTarget>}
 */
export async function startTarget(
  target,
  { pinning = null, nodeFlags = [], grpc = false, readyTimeoutMs = 20_000, onOutput } = {},
) {
  const port = await freePort();
  const grpcPort = grpc ? await freePort() : undefined;
  const proc = spawnTarget(target, port, { pinning, nodeFlags, grpcPort, onOutput });
  const baseUrl = `http://127.0.0.1:${port}`;
  const cardUrl = `${baseUrl}/.well-known/agent-card.json`;
  const stop = () => stopProcess(proc);
  let exit;
  void proc.exited.then((e) => (exit = e));
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exit !== undefined) {
      proc.cleanup();
      throw new Error(
        `${target.label} exited (${exit.signal ?? exit.code}) before serving its card:\n${proc.output()}`,
      );
    }
    try {
      const answer = await get(cardUrl, { timeoutMs: 2000 });
      if (answer.status === 200 && (grpcPort === undefined || (await listening(grpcPort)))) {
        const card = JSON.parse(answer.text);
        const path = jsonRpcPathOf(card) ?? '/';
        const restPath = restPathOf(card);
        return {
          target,
          pid: proc.child.pid,
          baseUrl,
          cardUrl,
          rpcUrl: baseUrl + path,
          restUrl: restPath === undefined ? undefined : baseUrl + restPath,
          grpcPort,
          card,
          stop,
          countsFile: proc.countsFile,
        };
      }
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `${target.label} did not serve ${cardUrl}${grpcPort === undefined ? '' : ` and gRPC on port ${grpcPort}`} within ${readyTimeoutMs} ms:\n${proc.output()}`,
      );
    }
    await sleep(20);
  }
}

/**
 * SIGTERM, then SIGKILL after 5 s: the contract (point 9) asks a target to exit within 5 s of
 * SIGTERM, and the caller records when one did not.
 */
export async function stopProcess(proc) {
  const started = Date.now();
  let killed = false;
  if (proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      killed = true;
      proc.child.kill('SIGKILL');
    }, 5000);
    await proc.exited;
    clearTimeout(timer);
  }
  proc.cleanup();
  return { exitMs: Date.now() - started, killed };
}
