/**
 * Background writeback of the WAL of a {@link SqliteTaskStore}. Under `synchronous: 'NORMAL'`
 * commits only write to the operating system's cache; the WAL reaches the disk at the next
 * checkpoint, whose first step is an fsync of the whole WAL — run by better-sqlite3 on the event
 * loop. With the default checkpoint of ~40 MiB that fsync took ~40 ms of a ~47 ms checkpoint here,
 * several times a second under load: the server stood still for about a tenth of the time.
 *
 * So, a little after each commit, the WAL is `fdatasync`ed on libuv's thread pool, through a
 * descriptor of our own (an fsync flushes the file, whichever descriptor wrote it). When the
 * checkpoint comes, its fsync finds the WAL already on disk but for the last few milliseconds of
 * commits. The total written to disk is the same — every frame is written once per WAL cycle
 * either way — only who waits for it changes. A side effect: what a power loss can take under
 * `NORMAL` shrinks from "since the last checkpoint" to, in practice, the last few tens of
 * milliseconds (no promise: `FULL` is the setting that promises).
 *
 * SQLite keeps the WAL file open and in place (never deleted nor truncated) while the store holds
 * the database in exclusive locking mode, so one descriptor opened at the first commit stays
 * valid until the store closes.
 */

import { close as closeFile, fdatasync, openSync } from 'node:fs';
import { StorageError, asError } from '../../protocol/local-errors.js';

/** How long after a flush starts the next may start: bounds the flushes to ~40 a second. */
export const WAL_WRITEBACK_INTERVAL_MS = 25;

/** Flushes a file descriptor's data to disk, as `fs.fdatasync` does. */
export type FileSync = (
  fd: number,
  callback: (error: NodeJS.ErrnoException | null) => void,
) => void;

/** How to run a {@link SqliteWalWriteback}. */
export interface SqliteWalWritebackOptions {
  /** The WAL file: the database's path followed by `-wal`. */
  readonly walPath: string;
  /** Receives a failed open or flush; the writeback then stops (the store goes on without it). */
  readonly onError: (error: Error) => void;
  /** Default {@link WAL_WRITEBACK_INTERVAL_MS}. */
  readonly intervalMs?: number;
  /** Default `fs.fdatasync`. */
  readonly sync?: FileSync;
}

/**
 * Flushes the WAL in the background at most every {@link WAL_WRITEBACK_INTERVAL_MS}: a commit
 * starts a flush unless one is running or started less than the interval ago, in which case the
 * flush starts when it can. Only one flush runs at a time.
 */
export class SqliteWalWriteback {
  readonly #walPath: string;
  readonly #onError: (error: Error) => void;
  readonly #intervalMs: number;
  readonly #sync: FileSync;
  #fd: number | undefined;
  /** A commit happened since the running or last flush started. */
  #unflushed = false;
  /** The running flush, settling when it ends; `undefined` between flushes. */
  #flush: Promise<void> | undefined;
  #lastStart = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  /** Closed, or stopped by an error. */
  #stopped = false;
  /** Settles once the running flush ended and the descriptor is closed. */
  #closed: Promise<void> | undefined;

  constructor(options: SqliteWalWritebackOptions) {
    this.#walPath = options.walPath;
    this.#onError = options.onError;
    this.#intervalMs = options.intervalMs ?? WAL_WRITEBACK_INTERVAL_MS;
    this.#sync = options.sync ?? fdatasync;
  }

  /** A transaction was committed to the WAL: it will be flushed soon. */
  committed(): void {
    if (this.#stopped) return;
    this.#unflushed = true;
    this.#schedule();
  }

  /**
   * Stops the writeback; settles once no flush is running and the descriptor is closed. What was
   * not flushed yet is left to SQLite (closing the database checkpoints the WAL with its syncs).
   */
  close(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#closed ??= (this.#flush ?? Promise.resolve()).then(() => this.#closeFile());
    return this.#closed;
  }

  #schedule(): void {
    if (this.#flush !== undefined || this.#timer !== undefined) return;
    const wait = this.#lastStart + this.#intervalMs - performance.now();
    if (wait > 0) {
      this.#timer = setTimeout(this.#start, wait);
      // A flush is an optimisation: it must not keep a process alive that has nothing else to do.
      this.#timer.unref();
    } else {
      this.#start();
    }
  }

  readonly #start = (): void => {
    this.#timer = undefined;
    if (this.#stopped || !this.#unflushed) return;
    let fd: number;
    try {
      fd = this.#fd ??= openSync(this.#walPath, 'r');
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#unflushed = false;
    this.#lastStart = performance.now();
    let ended!: () => void;
    this.#flush = new Promise<void>((resolve) => (ended = resolve));
    this.#sync(fd, (error) => {
      this.#flush = undefined;
      ended();
      if (error !== null) this.#fail(error);
      else if (this.#unflushed && !this.#stopped) this.#schedule();
    });
  };

  /**
   * The writeback cannot go on. The store can: if the disk itself failed, SQLite's own syncs
   * fail too and the writes that depend on them reject.
   */
  #fail(error: unknown): void {
    this.#onError(
      new StorageError(
        `Background flush of the SQLite WAL ${this.#walPath} stopped: ${asError(error).message}`,
        { cause: error },
      ),
    );
    void this.close();
  }

  #closeFile(): Promise<void> {
    const fd = this.#fd;
    if (fd === undefined) return Promise.resolve();
    this.#fd = undefined;
    return new Promise<void>((resolve) => {
      closeFile(fd, (error) => {
        if (error !== null) this.#onError(error);
        resolve();
      });
    });
  }
}
