/**
 * Runs the built `tandem` CLI (`dist/cli/main.cjs`) as a child process against a real A2A server
 * started in the test process, and waits on what the child prints rather than on timers.
 *
 * `npm test` builds before vitest. When `dist/` is missing or older than `src/` (e.g. `npx vitest
 * run test/cli` after an edit), {@link ensureBuilt} fails with a message saying to build: tests
 * never rebuild `dist/` themselves, since other test files run the built code at the same time.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The CLI entry point the tests run. */
export const CLI = join(ROOT, 'dist/cli/main.cjs');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function isStale(): boolean {
  return !existsSync(CLI) || statSync(CLI).mtimeMs < newestSource(join(ROOT, 'src'));
}

/** Fails unless `dist/` holds a build at least as new as the sources. */
export function ensureBuilt(): Promise<void> {
  if (!existsSync(CLI)) {
    return Promise.reject(new Error(`${CLI} is missing: run \`npm run build\` before these tests`));
  }
  if (isStale()) {
    return Promise.reject(
      new Error('dist/ is older than src/: run `npm run build` before these tests'),
    );
  }
  return Promise.resolve();
}

/** The environment of a child: no colour settings inherited from the test runner. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const key of ['FORCE_COLOR', 'NO_COLOR']) if (!(key in extra)) delete env[key];
  return env;
}

/** How a finished CLI run ended and what it printed. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI to completion; `input` is written to its stdin, then stdin is closed. */
export async function runCli(
  args: readonly string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const child = new CliProcess(args, options.env);
  child.end(options.input);
  const code = await child.exited;
  return { code, stdout: child.stdout, stderr: child.stderr };
}

/** A running CLI whose output the test can wait on. */
export class CliProcess {
  stdout = '';
  stderr = '';
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private readonly waiters = new Set<() => void>();

  constructor(args: readonly string[], env?: Record<string, string>, command?: readonly string[]) {
    const [file, ...prefix] = command ?? [process.execPath, CLI];
    this.child = spawn(file ?? process.execPath, [...prefix, ...args], {
      env: childEnv(env),
      stdio: 'pipe',
    });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      this.notify();
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code) => {
        this.notify();
        resolve(code);
      });
    });
  }

  /** Resolves once stdout (or stderr) matches; rejects after `timeoutMs` with what was printed. */
  waitFor(
    pattern: RegExp | string,
    options: { stream?: 'stdout' | 'stderr'; timeoutMs?: number } = {},
  ): Promise<void> {
    const stream = options.stream ?? 'stdout';
    const matches = (): boolean => {
      const text = stream === 'stdout' ? this.stdout : this.stderr;
      return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
    };
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!matches()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `Timed out waiting for ${String(pattern)} on ${stream}.\nstdout: ${this.stdout}\nstderr: ${this.stderr}`,
          ),
        );
      }, options.timeoutMs ?? 10_000);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** The child's process id. */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  write(text: string): void {
    this.child.stdin?.write(text);
  }

  /** Writes `text` (if any) and closes stdin. */
  end(text?: string): void {
    if (text === undefined) this.child.stdin?.end();
    else this.child.stdin?.end(text);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
