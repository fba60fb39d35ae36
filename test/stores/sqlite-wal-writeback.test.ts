/**
 * The background flush of the SQLite WAL: when flushes start (after a commit, at most one at a
 * time and one per interval, none without a commit), that closing waits for the running flush and
 * releases the descriptor, that failures reach `onError` and stop the flush — and that the store
 * runs it under `synchronous: 'NORMAL'` and not under `'FULL'`.
 *
 * The flush itself (`fs.fdatasync`) is replaced by a recorder in the timing tests so that the test
 * decides when each one completes; the error tests and the store tests use the real one.
 */

import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StorageError } from '../../src/protocol/local-errors.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqlite-task-store.js';
import { type FileSync, SqliteWalWriteback } from '../../src/stores/sqlite/sqlite-wal-writeback.js';
import { createRequest, newTask } from './contract/builders.js';

const linuxOnly = process.platform === 'linux' ? it : it.skip;

let directory: string;
let walPath: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'tandem-wal-'));
  walPath = join(directory, 'tandem.db-wal');
  writeFileSync(walPath, 'frames');
});

afterEach(() => {
  vi.useRealTimers();
  rmSync(directory, { recursive: true, force: true });
});

/** A `FileSync` whose calls the test completes one by one. */
function recordedSync(): {
  sync: FileSync;
  calls: number[];
  complete(error?: NodeJS.ErrnoException): void;
} {
  const pending: ((error: NodeJS.ErrnoException | null) => void)[] = [];
  const calls: number[] = [];
  return {
    calls,
    sync: (fd, callback) => {
      calls.push(fd);
      pending.push(callback);
    },
    complete: (error) => {
      const callback = pending.shift();
      if (callback === undefined) throw new Error('no flush is running');
      callback(error ?? null);
    },
  };
}

/** Descriptors of this process open on `file` (Linux). */
function descriptorsOn(file: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // closed between the listing and the read (the listing's own descriptor)
    }
  }).length;
}

describe('SqliteWalWriteback', () => {
  it('flushes after a commit, one flush at a time, at most one per interval', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const flushes = recordedSync();
    const errors: Error[] = [];
    const writeback = new SqliteWalWriteback({
      walPath,
      intervalMs: 25,
      sync: flushes.sync,
      onError: (error) => errors.push(error),
    });

    expect(flushes.calls).toHaveLength(0);
    writeback.committed();
    expect(flushes.calls).toHaveLength(1);

    // Commits during a flush wait for it, then for the rest of the interval.
    writeback.committed();
    writeback.committed();
    vi.advanceTimersByTime(10);
    flushes.complete();
    expect(flushes.calls).toHaveLength(1);
    vi.advanceTimersByTime(14);
    expect(flushes.calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(flushes.calls).toHaveLength(2);

    // No commit since the second flush started: nothing more to flush, however long it waits.
    flushes.complete();
    vi.advanceTimersByTime(1_000);
    expect(flushes.calls).toHaveLength(2);

    // Long after the last flush, a commit is flushed at once, through the same descriptor.
    writeback.committed();
    expect(flushes.calls).toHaveLength(3);
    expect(new Set(flushes.calls).size).toBe(1);
    flushes.complete();
    expect(errors).toEqual([]);
  });

  linuxOnly('closing waits for the running flush, then releases the file', async () => {
    const flushes = recordedSync();
    const writeback = new SqliteWalWriteback({ walPath, sync: flushes.sync, onError: fail });
    writeback.committed();
    expect(descriptorsOn(walPath)).toBe(1);

    let closed = false;
    const closing = writeback.close().then(() => {
      closed = true;
    });
    const closingAgain = writeback.close();
    await Promise.resolve();
    expect(closed).toBe(false);
    expect(descriptorsOn(walPath)).toBe(1);

    flushes.complete();
    await Promise.all([closing, closingAgain]);
    expect(descriptorsOn(walPath)).toBe(0);

    writeback.committed();
    expect(flushes.calls).toHaveLength(1);
  });

  it('reports a WAL it cannot open, and stops', async () => {
    const flushes = recordedSync();
    const errors: Error[] = [];
    const missing = join(directory, 'missing.db-wal');
    const writeback = new SqliteWalWriteback({
      walPath: missing,
      sync: flushes.sync,
      onError: (error) => errors.push(error),
    });
    writeback.committed();
    writeback.committed();
    expect(flushes.calls).toHaveLength(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StorageError);
    expect(errors[0]?.message).toContain(missing);
    expect(errors[0]?.message).toMatch(/ENOENT/);
    await writeback.close();
  });

  linuxOnly('reports a flush the file system refuses, and stops', async () => {
    const errors: Error[] = [];
    const before = descriptorsOn('/dev/null');
    let reported: () => void = () => {};
    const failed = new Promise<void>((resolve) => {
      reported = resolve;
    });
    // A character device cannot be fdatasync'ed (EINVAL): the real flush, failing for real.
    const writeback = new SqliteWalWriteback({
      walPath: '/dev/null',
      onError: (error) => {
        errors.push(error);
        reported();
      },
    });
    writeback.committed();
    await failed;
    writeback.committed();
    await writeback.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StorageError);
    expect(errors[0]?.message).toContain('/dev/null');
    expect(errors[0]?.message).toMatch(/EINVAL/);
    expect(descriptorsOn('/dev/null')).toBe(before);
  });
});

describe('SqliteTaskStore WAL writeback', () => {
  linuxOnly('flushes the WAL of a file under NORMAL, and lets it go on close', async () => {
    const path = join(directory, 'normal.db');
    const store = SqliteTaskStore.open({ path, onError: fail });
    await store.createTask(createRequest(newTask('t1')));
    expect(descriptorsOn(`${path}-wal`)).toBe(2);
    await store.close();
    expect(descriptorsOn(`${path}-wal`)).toBe(0);
  });

  linuxOnly('does not under FULL, where every commit syncs the WAL', async () => {
    const path = join(directory, 'full.db');
    const store = SqliteTaskStore.open({ path, synchronous: 'FULL', onError: fail });
    await store.createTask(createRequest(newTask('t1')));
    expect(descriptorsOn(`${path}-wal`)).toBe(1);
    await store.close();
  });
});

function fail(error: Error): never {
  throw error;
}
