/**
 * Servers in child processes: `tandem serve` from the build (`dist/cli/main.cjs`) and the replica
 * fixture of the durability tests (`durability/fixtures/replica-server.mjs`, which imports
 * `dist/server.js`). `npm test` builds before running vitest; run `npm run build` first when
 * calling vitest directly.
 *
 * A process is followed through its stdout and stderr, line by line: the line announcing its URL, and
 * whatever the test awaits (`aborted <taskId>` from the fixture's agent). Every process a test
 * starts is killed (by its pid) after the test if it is still alive.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { within } from './sync.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export const CLI = fileURLToPath(new URL('../../dist/cli/main.cjs', import.meta.url));
export const REPLICA_SERVER = fileURLToPath(
  new URL('../durability/fixtures/replica-server.mjs', import.meta.url),
);

/** Fails early, with what to do, when the build the child processes run is missing. */
export function requireBuild(): void {
  for (const file of [CLI, fileURLToPath(new URL('../../dist/server.js', import.meta.url))]) {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: run \`npm run build\` before these tests`);
    }
  }
}

/** Milliseconds to wait for a server to announce its URL. */
const STARTUP_MS = 10_000;

/** Children still running; killed if the test worker itself exits (a crash, a timeout). */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A server running in a child process. */
export class ServerProcess {
  readonly #child: ChildProcess;
  readonly #lines: string[] = [];
  readonly #waiters = new Set<{ pattern: RegExp; resolve: (match: RegExpMatchArray) => void }>();
  readonly #stderr: string[] = [];
  readonly #errorLines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #alive = true;

  constructor(args: readonly string[]) {
    this.#child = spawn(process.execPath, args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Settings of the test's own environment must not reach the server.
      env: { ...process.env, NO_COLOR: '1', TANDEM_STORE: '', PORT: '' },
    });
    running.add(this.#child);
    this.exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        running.delete(this.#child);
        this.#alive = false;
        resolve({ code, signal });
      });
    });
    createInterface({ input: this.#child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      this.#lines.push(line);
      this.#match(line);
    });
    // `tandem serve` prints its banner to stderr when stdout is not a terminal: lines awaited
    // are looked for on both streams.
    createInterface({ input: this.#child.stderr as NodeJS.ReadableStream }).on('line', (line) => {
      this.#stderr.push(`${line}\n`);
      this.#errorLines.push(line);
      this.#match(line);
    });
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Everything printed to stdout so far. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /** Everything printed to stderr so far, for failure messages. */
  get stderr(): string {
    return this.#stderr.join('');
  }

  #match(line: string): void {
    for (const waiter of [...this.#waiters]) {
      const match = line.match(waiter.pattern);
      if (match === null) continue;
      this.#waiters.delete(waiter);
      waiter.resolve(match);
    }
  }

  /** Resolves with the first stdout or stderr line (printed so far or later) matching `pattern`. */
  line(pattern: RegExp, timeoutMs = 5_000): Promise<RegExpMatchArray> {
    for (const line of [...this.#lines, ...this.#errorLines]) {
      const match = line.match(pattern);
      if (match !== null) return Promise.resolve(match);
    }
    const found = new Promise<RegExpMatchArray>((resolve) => {
      this.#waiters.add({ pattern, resolve });
    });
    const died = this.exited.then(({ code, signal }) => {
      throw new Error(
        `The server exited (code ${code}, signal ${signal}) before printing ${pattern}\n${this.stderr}`,
      );
    });
    return within(Promise.race([found, died]), timeoutMs, `a line matching ${pattern}`);
  }

  /** SIGKILL: the process dies at once, with no chance to clean up. Resolves once it is gone. */
  async kill9(): Promise<void> {
    if (this.#alive) this.#child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM; resolves with the exit code once the process has stopped. */
  async terminate(timeoutMs = 10_000): Promise<number | null> {
    if (this.#alive) this.#child.kill('SIGTERM');
    const { code } = await within(this.exited, timeoutMs, 'the server to stop after SIGTERM');
    return code;
  }
}

/** Starts server processes for the tests of a file, and kills the ones a test left alive. */
export interface ServerProcesses {
  /**
   * Starts a process and resolves once it printed a line matching `urlLine`, whose first group
   * is the base URL.
   */
  start(args: readonly string[], urlLine: RegExp): Promise<{ process: ServerProcess; url: string }>;
  /** Kills (SIGKILL) every process still alive; also done after each test. */
  killAll(): Promise<void>;
}

export function serverProcesses(): ServerProcesses {
  const started: ServerProcess[] = [];
  const killAll = async (): Promise<void> => {
    await Promise.all(started.splice(0).map((server) => server.kill9()));
  };
  afterEach(killAll);
  return {
    killAll,
    async start(args, urlLine) {
      const server = new ServerProcess(args);
      started.push(server);
      const match = await server.line(urlLine, STARTUP_MS);
      const url = match[1];
      if (url === undefined) throw new Error(`${urlLine} has no group for the URL`);
      return { process: server, url };
    },
  };
}

/** `tandem serve` prints this once it listens; group 1 is the base URL. */
export const SERVE_URL_LINE = /^Tandem is serving .* at (http:\/\/\S+)$/;

/** The replica fixture prints this once it listens; group 1 is the base URL. */
export const REPLICA_URL_LINE = /^listening (http:\/\/\S+)$/;
