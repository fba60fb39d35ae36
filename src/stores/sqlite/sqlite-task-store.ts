/**
 * A {@link TaskStore} in one SQLite file (better-sqlite3), the default of `tandem serve`: tasks
 * survive restarts with nothing to run beside the server. The schema (see `sqlite-migrations.ts`)
 * is created and migrated when the file is opened.
 *
 * One process: the file is opened in exclusive locking mode and stays locked while the store is
 * open; a second process gets a `ConfigurationError` saying so. That is what makes start-up
 * recovery safe (every task still active belongs to a dead process) and lets the writer keep what
 * it knows of running tasks in memory. Several replicas share PostgreSQL instead.
 *
 * Durability: the file is in WAL mode, and writes are group-committed — those requested in one
 * turn of the event loop share one transaction, committed before any of their promises resolve;
 * artifact chunks may wait up to a millisecond to share it with the next ones (see
 * `sqlite-group-commit.ts`). With `synchronous: 'NORMAL'` (the default) a committed write
 * survives the process dying in any way, `kill -9` included, because it is in the operating
 * system's cache; it can be lost only if the machine itself loses power or crashes before it
 * reaches the disk — at the next WAL checkpoint at the latest, and in practice within tens of
 * milliseconds, as the WAL is flushed in the background (`sqlite-wal-writeback.ts`). `'FULL'`
 * syncs the WAL to disk at every commit and survives that too, at the cost of one fsync per
 * commit.
 *
 * better-sqlite3 is synchronous: each call runs to completion on the calling thread, so reads
 * never see half a write, and the promises of reads are already settled when returned.
 */

import { resolve as resolvePath } from 'node:path';
import Database from 'better-sqlite3';
import { asError, ConfigurationError, UsageError } from '../../protocol/local-errors.js';
import { integerOption } from '../../protocol/integer-option.js';
import type {
  AppendRequest,
  AppendResult,
  CreateTaskRequest,
  StoredTask,
  TaskLeases,
  TaskListPage,
  TaskListQuery,
  TaskLogEntry,
  TaskRetention,
  TaskReadScope,
  TaskStore,
  TaskViewOptions,
} from '../task-store.js';
import { SqliteGroupCommit, type WriteOptions } from './sqlite-group-commit.js';
import { migrateSqliteSchema } from './sqlite-migrations.js';
import { SqliteTaskLeases } from './sqlite-task-leases.js';
import { SqlitePushConfigs } from './sqlite-push-configs.js';
import type { TaskPushStore } from '../push-store.js';
import { SqliteTaskReads } from './sqlite-task-reads.js';
import { SqliteTaskRetention } from './sqlite-task-retention.js';
import { SqliteTaskWrites } from './sqlite-task-writes.js';
import { SqliteWalWriteback } from './sqlite-wal-writeback.js';
import { explainOpenError, isBusy } from './sqlite-open-errors.js';

/** How long opening waits for a lock before it says that it is waiting. */
export const BUSY_NOTICE_MS = 500;

/** How to open a {@link SqliteTaskStore}. */
export interface SqliteTaskStoreOptions {
  /** The database file, created if missing (with its `-wal` and `-shm` companions). */
  readonly path: string;
  /**
   * `NORMAL` (default): a committed write survives any crash of the process; `FULL`: it also
   * survives a power loss or an operating system crash, at one fsync per write.
   */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /**
   * How long opening waits for another process to release the file (a server being restarted)
   * before failing. Default 5000.
   */
  readonly busyTimeoutMs?: number;
  /**
   * Told once, after {@link BUSY_NOTICE_MS}, that opening is waiting for another process that
   * holds the file, so that the wait is not silent; the message names the file.
   */
  readonly onWaiting?: ((message: string) => void) | undefined;
  /**
   * How many pages (4 KiB each) the WAL may hold before a commit checkpoints it into the database
   * file. Default 10,000 (~40 MiB), ten times SQLite's own: a checkpoint copies each page once
   * however often it was rewritten since the last one, and syncs the files, so fewer, larger
   * checkpoints cost less per write — ~10–20% more SendMessage requests per second here. With
   * `synchronous: 'NORMAL'`, what a power loss can take is what the WAL holds since the last
   * checkpoint.
   */
  readonly checkpointPages?: number;
  /**
   * Receives failures of the store's background work, which no caller can receive: the flush of
   * the WAL that runs after commits under `synchronous: 'NORMAL'`. The flush then stops; the
   * store goes on (SQLite syncs the WAL itself at each checkpoint). Without it they are dropped.
   */
  readonly onError?: (error: Error) => void;
}

/** The default of {@link SqliteTaskStoreOptions.checkpointPages}. */
export const DEFAULT_CHECKPOINT_PAGES = 10_000;

const URGENT: WriteOptions = { urgent: true };
const DEFERRABLE: WriteOptions = { urgent: false };
const ROW_WRITE: WriteOptions = { urgent: true, afterDeferred: true };

/** A task store in one SQLite file. Create it with {@link SqliteTaskStore.open}. */
export class SqliteTaskStore implements TaskStore {
  /** The file is locked by the one process that opened it. */
  readonly topology = 'exclusive';
  /** Writes queue in call order for the group commit. */
  readonly pipelinedAppends = true;
  /** Each lease change is one conditional UPDATE, committed with the writes around it. */
  readonly leases: TaskLeases;
  readonly retention: TaskRetention;
  /** Push configs: writes go through the group commit, after the deferred task rows. */
  readonly push: TaskPushStore;
  readonly #pushConfigs: SqlitePushConfigs;
  readonly #db: Database.Database;
  readonly #path: string;
  readonly #reads: SqliteTaskReads;
  readonly #writes: SqliteTaskWrites;
  readonly #commits: SqliteGroupCommit;
  /** Absent for an in-memory database and under `synchronous: 'FULL'` (every commit syncs). */
  readonly #walWriteback: SqliteWalWriteback | undefined;

  private constructor(
    db: Database.Database,
    path: string,
    walWriteback: SqliteWalWriteback | undefined,
  ) {
    this.#db = db;
    this.#path = path;
    this.#reads = new SqliteTaskReads(db);
    this.#writes = new SqliteTaskWrites(db);
    this.#commits = new SqliteGroupCommit(db, {
      writeDeferred: () => this.#writes.writeDeferred(),
      onRollback: () => this.#writes.forgetAll(),
      onCommit: () => this.#walWriteback?.committed(),
    });
    this.#walWriteback = walWriteback;
    const leases = new SqliteTaskLeases(db);
    this.leases = {
      acquire: (taskId, holder, leaseMs) =>
        this.#writeRows(() => leases.acquire(taskId, holder, leaseMs)),
      renew: (holder, leaseMs) => this.#writeRows(() => leases.renew(holder, leaseMs)),
      release: (taskId, holder) => this.#writeRows(() => leases.release(taskId, holder)),
      findOrphans: (limit, options) =>
        this.#run(() => leases.findOrphans(limit, options?.ignoreLeases === true)),
    };
    const push = new SqlitePushConfigs(db);
    this.#pushConfigs = push;
    this.push = {
      putConfig: (scope, config, options) =>
        this.#writeRows(() => push.put(scope, config, options)),
      getConfig: (scope, taskId, id) => this.#run(() => push.get(scope, taskId, id)),
      listConfigs: (scope, taskId, limit, afterId) =>
        this.#run(() => push.list(scope, taskId, limit, afterId)),
      deleteConfig: (scope, taskId, id) => this.#writeRows(() => push.delete(scope, taskId, id)),
      claimDue: (holder, _leaseMs, limit) => this.#writeRows(() => push.claimDue(holder, limit)),
      claim: (holder, _leaseMs, taskId, id) =>
        this.#writeRows(() => push.claim(holder, taskId, id)),
      renewClaims: () => Promise.resolve(),
      release: (holder, taskId, id) => this.#writeRows(() => push.release(holder, taskId, id)),
      recordDelivery: (holder, taskId, id, update) =>
        this.#writeRows(() => push.record(holder, taskId, id, update)),
    };
    const retention = new SqliteTaskRetention(db);
    this.retention = {
      purgeTerminalTasks: (terminalBefore, limit) =>
        this.#writeRows(() => retention.purge(terminalBefore, limit)),
    };
  }

  /**
   * Opens (creating or migrating as needed) the database at `options.path`. Throws a
   * `ConfigurationError` when the file cannot be used, naming it and why: its directory missing,
   * not permitted to the process's user, a directory given as the file, in use by another process
   * past `busyTimeoutMs`, written by a newer Tandem, or unable to switch to WAL mode (e.g. on a
   * network file system).
   */
  static open(options: SqliteTaskStoreOptions): SqliteTaskStore {
    const checkpointPages = checkpointPagesOf(options.checkpointPages);
    const timeoutMs = options.busyTimeoutMs ?? 5_000;
    const started = Date.now();
    // SQLite waits for a lock inside one synchronous call: a short first wait lets the notice
    // out before the rest of the wait, instead of blocking silently for all of it.
    const first = Math.min(timeoutMs, BUSY_NOTICE_MS);
    try {
      try {
        return SqliteTaskStore.#openOnce(options, checkpointPages, first);
      } catch (error) {
        if (!isBusy(error) || timeoutMs <= first) throw error;
        const rest = Math.round((timeoutMs - first) / 100) / 10;
        options.onWaiting?.(
          `waiting for another process that holds ${options.path} (up to ${rest} s more)`,
        );
        return SqliteTaskStore.#openOnce(options, checkpointPages, timeoutMs - first);
      }
    } catch (error) {
      throw explainOpenError(error, options.path, Date.now() - started);
    }
  }

  /** One attempt at opening, waiting up to `timeoutMs` for a lock; SQLite's error as it is. */
  static #openOnce(
    options: SqliteTaskStoreOptions,
    checkpointPages: number,
    timeoutMs: number,
  ): SqliteTaskStore {
    const { path } = options;
    const db = new Database(path, { timeout: timeoutMs });
    try {
      // Before the first access: WAL then works without shared memory, and the lock taken by the
      // migration's write transaction is kept until the store is closed.
      db.pragma('locking_mode = EXCLUSIVE');
      const mode: unknown = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal' && !db.memory) {
        throw new ConfigurationError(
          `${path} cannot use SQLite's WAL mode (got ${String(mode)}); put the database on a local file system`,
        );
      }
      const synchronous = options.synchronous ?? 'NORMAL';
      db.pragma(`synchronous = ${synchronous}`);
      db.pragma(`wal_autocheckpoint = ${checkpointPages}`);
      migrateSqliteSchema(db, path);
      const walWriteback =
        synchronous === 'NORMAL' && !db.memory
          ? new SqliteWalWriteback({
              walPath: `${resolvePath(db.name)}-wal`,
              onError: options.onError ?? ignoreError,
            })
          : undefined;
      return new SqliteTaskStore(db, path, walWriteback);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Runs `operation` now and settles a promise with its outcome. */
  #run<T>(operation: () => T): Promise<T> {
    if (!this.#db.open) {
      return Promise.reject(new UsageError(`The task store ${this.#path} is closed`));
    }
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(asError(error));
    }
  }

  /** Queues a write for the group commit; settles once it is committed. */
  #write<T>(operation: () => T, options: WriteOptions): Promise<T> {
    if (!this.#db.open) {
      return Promise.reject(new UsageError(`The task store ${this.#path} is closed`));
    }
    return this.#commits.enqueue(operation, options);
  }

  /** A write of task rows other than through `createTask`/`append`: deferred rows go first. */
  #writeRows<T>(operation: () => T): Promise<T> {
    return this.#write(operation, ROW_WRITE);
  }

  createTask(request: CreateTaskRequest): Promise<void> {
    const configs = request.pushConfigs ?? [];
    if (configs.length === 0) return this.#write(() => this.#writes.create(request), URGENT);
    return this.#write(
      () => this.#writes.create(request, (key) => this.#pushConfigs.insertForNewTask(key, configs)),
      URGENT,
    );
  }

  /** An append that changes no status (an artifact chunk) may wait a little for its commit. */
  append(request: AppendRequest): Promise<AppendResult> {
    const urgent = request.mutations.some((mutation) => mutation.kind !== 'artifact');
    return this.#write(() => this.#writes.append(request), urgent ? URGENT : DEFERRABLE);
  }

  getTask(
    scope: TaskReadScope,
    taskId: string,
    view?: TaskViewOptions,
  ): Promise<StoredTask | undefined> {
    return this.#run(() => this.#reads.getTask(scope, taskId, view));
  }

  listTasks(scope: TaskReadScope, query: TaskListQuery): Promise<TaskListPage> {
    return this.#run(() => this.#reads.listTasks(scope, query));
  }

  readEvents(taskId: string, afterSeq: number, limit: number): Promise<TaskLogEntry[] | undefined> {
    return this.#run(() => this.#reads.readEvents(taskId, afterSeq, limit));
  }

  /** Closes the file; later calls reject with a `UsageError`. Closing twice is harmless. */
  async close(): Promise<void> {
    if (!this.#db.open) return;
    const closing = this.#run(() => {
      this.#commits.flush();
      try {
        // Lets SQLite refresh its planner statistics where useful, as its documentation advises.
        this.#db.pragma('optimize');
      } finally {
        this.#db.close();
      }
    });
    // SQLite checkpointed and synced the WAL as it closed: an unfinished flush is moot.
    await Promise.all([closing, this.#walWriteback?.close()]);
  }
}

const ignoreError = (): void => {};

function checkpointPagesOf(pages: number | undefined): number {
  return integerOption('checkpointPages', pages ?? DEFAULT_CHECKPOINT_PAGES, 1, 'WAL pages');
}
