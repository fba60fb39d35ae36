/**
 * A SQLite path that cannot be used is answered with the path and the reason, as one line and
 * no stack trace: a missing directory (create it), a directory given as the file, a directory
 * the process's user may not write (with the user's name), and a database another connection
 * holds — where the open says, after a short wait, that it is waiting, instead of blocking
 * silently. Each through `SqliteTaskStore.open`, and through `tandem serve --store sqlite:PATH`
 * as a child process.
 *
 * Permission checks do not apply to root. Run as root, the in-process permission test is skipped
 * (visibly, with the reason), and the CLI test runs the server as the unprivileged user `nobody`
 * instead, where the check applies again.
 */

import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/protocol/local-errors.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqlite-task-store.js';
import { ensureBuilt, CLI } from '../cli/cli-harness.js';
import { within } from '../support/sync.js';

const IS_ROOT = process.getuid?.() === 0;
/** The uid/gid of `nobody`, the user the CLI's permission test runs as under root. */
const NOBODY = 65534;

let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'tandem-sqlite-open-'));
  // Under root, the child running as nobody must be able to reach the directories inside.
  chmodSync(directory, 0o755);
  mkdirSync(join(directory, 'read-only'));
  chmodSync(join(directory, 'read-only'), 0o555);
});

afterAll(() => {
  chmodSync(join(directory, 'read-only'), 0o755);
  rmSync(directory, { recursive: true, force: true });
});

async function openError(
  path: string,
  options: { busyTimeoutMs?: number } = {},
): Promise<ConfigurationError> {
  try {
    await SqliteTaskStore.open({ path, ...options }).close();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error(`${path} opened`);
}

/** A read-only directory (0555). */
function readOnlyDirectory(): string {
  return join(directory, 'read-only');
}

interface ServeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `tandem serve --store sqlite:PATH` until it exits or prints `until`; `asUser` runs it as
 * another uid (only root may).
 */
function serve(
  path: string,
  options: { asUser?: number; until?: RegExp; onLine?: (text: string) => void } = {},
): Promise<ServeRun & { stop: () => Promise<unknown> }> {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--store', `sqlite:${path}`, '--port', '0', '--host', '127.0.0.1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', TANDEM_STORE: '', PORT: '' },
      ...(options.asUser === undefined ? {} : { uid: options.asUser, gid: options.asUser }),
    },
  );
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const stop = () => {
      child.kill('SIGTERM');
      return within(exited, 10_000, 'tandem serve to stop after SIGTERM');
    };
    const check = () => {
      options.onLine?.(stdout + stderr);
      if (options.until?.test(stdout + stderr) === true) {
        resolve({ code: null, stdout, stderr, stop });
      }
    };
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      check();
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      check();
    });
    child.once('error', reject);
    void exited.then((code) => resolve({ code, stdout, stderr, stop }));
  });
}

describe('opening a SQLite file that cannot be used', () => {
  it('names a missing directory, and says to create it', async () => {
    const missing = join(directory, 'no-such-dir', 'tandem.db');
    const error = await openError(missing);
    expect(error.message).toBe(
      `cannot open the SQLite task store ${missing}: the directory ${join(directory, 'no-such-dir')} does not exist; create it (mkdir -p ${join(directory, 'no-such-dir')}) or choose another path`,
    );
  });

  it('names a directory given as the file', async () => {
    const error = await openError(directory);
    expect(error.message).toMatch(
      new RegExp(
        `^cannot open the SQLite task store ${directory}: ${directory} is a directory; give the path of a database file, e\\.g\\. ${directory}/tandem\\.db$`,
      ),
    );
  });

  it.skipIf(IS_ROOT)(
    'names the user who may not write the directory (skipped as root: permission checks do not apply to root)',
    async () => {
      const path = join(readOnlyDirectory(), 'tandem.db');
      const error = await openError(path);
      expect(error.message).toBe(
        `cannot open the SQLite task store ${path}: permission denied: user ${userInfo().username} may not create files in ${join(directory, 'read-only')}`,
      );
    },
  );

  it('says it waits for a database another connection holds, then that it is in use', async () => {
    const path = join(directory, 'held.db');
    await SqliteTaskStore.open({ path }).close();
    const holder = new Database(path);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const notices: string[] = [];
      let error: unknown;
      try {
        await SqliteTaskStore.open({
          path,
          busyTimeoutMs: 1_200,
          onWaiting: (message) => notices.push(message),
        }).close();
      } catch (caught) {
        error = caught;
      }
      expect(notices).toEqual([
        `waiting for another process that holds ${path} (up to 0.7 s more)`,
      ]);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^${path} is in use by another process \\(waited 1\\.\\d s\\); a SQLite task store serves one process`,
        ),
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });
});

describe('tandem serve --store sqlite:PATH that cannot be used', () => {
  beforeAll(ensureBuilt);

  it('prints one line naming the missing directory, no stack trace, and exits', async () => {
    const missing = join(directory, 'absent', 'tandem.db');
    const run = await within(serve(missing), 20_000, 'tandem serve to exit');
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toBe(
      `tandem: cannot open the SQLite task store ${missing}: the directory ${join(directory, 'absent')} does not exist; create it (mkdir -p ${join(directory, 'absent')}) or choose another path`,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('names the user who may not write the directory', async () => {
    const path = join(readOnlyDirectory(), 'tandem.db');
    // Root passes every permission check: run the server as nobody, where they apply.
    const run = await within(
      serve(path, IS_ROOT ? { asUser: NOBODY } : {}),
      20_000,
      'tandem serve to exit',
    );
    const user = IS_ROOT ? /\S+/.source : userInfo().username;
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toMatch(
      new RegExp(
        `^tandem: cannot open the SQLite task store ${path}: permission denied: user ${user} may not create files in ${join(directory, 'read-only')}$`,
      ),
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('says it is waiting for the process that holds the database, and starts once released', async () => {
    const path = join(directory, 'busy.db');
    await SqliteTaskStore.open({ path }).close();
    const holder = new Database(path);
    holder.exec('BEGIN EXCLUSIVE');
    let released = false;
    const run = await within(
      serve(path, {
        until: /Tandem is serving/,
        onLine: (text) => {
          // Released only once the server said it waits: the wait is real, and it is reported.
          if (!released && text.includes(`waiting for another process that holds ${path}`)) {
            released = true;
            // A WAL database opened in exclusive locking mode waits for every other connection
            // to close, not only for its transaction to end.
            holder.exec('COMMIT');
            holder.close();
          }
        },
      }),
      20_000,
      'tandem serve to report the wait, then serve',
    );
    try {
      expect(released).toBe(true);
      const waiting = run.stdout
        .split('\n')
        .find((line) => line.includes('waiting for another process'));
      expect(JSON.parse(waiting ?? '{}')).toMatchObject({
        level: 40,
        msg: `waiting for another process that holds ${path} (up to 4.5 s more)`,
      });
      expect(run.stderr).toContain('Tandem is serving');
    } finally {
      await run.stop();
      if (holder.open) holder.close();
    }
  });
});
