/**
 * `tandem serve` as a real child process: the built CLI (`npm run build` → `dist/cli/main.cjs`)
 * started with `node`, its address read from what it prints, its exit awaited.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI_PATH = fileURLToPath(new URL('../../../dist/cli/main.cjs', import.meta.url));

/** Fails with what to do when the CLI has not been built. */
export function requireBuiltCli(): void {
  if (!existsSync(CLI_PATH)) {
    throw new Error(`${CLI_PATH} is missing; run \`npm run build\` before the end-to-end tests`);
  }
}

export interface ServeProcess {
  readonly child: ChildProcess;
  /** The base URL the server printed. */
  readonly url: string;
  /** Resolves with the exit code and signal once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
}

/** Starts `tandem serve` with `args` and resolves once it prints where it serves. */
export function startServe(args: readonly string[]): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI_PATH, 'serve', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TANDEM_STORE: '', PORT: '' },
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = /Tandem is serving \S+ at (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) {
        resolve({ child, url: match[1], exited, output: () => output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', reject);
    void exited.then(({ code, signal }) =>
      reject(new Error(`tandem serve exited (${code ?? signal}) before serving:\n${output}`)),
    );
  });
}
