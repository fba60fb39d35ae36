/**
 * Group commit for the writes of {@link SqliteTaskStore}. A SQLite commit costs far more than the
 * statements it commits — every page the transaction touched goes to the WAL at COMMIT, indexes
 * included — so the writes requested during one turn of the event loop are committed together,
 * in one `BEGIN IMMEDIATE` … `COMMIT` run just after the turn's I/O callbacks (`setImmediate`).
 *
 * A write someone is waiting for — a new task, a status change a blocking `SendMessage` returns
 * on — is urgent and commits at the end of its turn. Others (artifact chunks, which the runtime
 * sends ahead without waiting) may wait up to {@link DEFERRED_COMMIT_MS} for an urgent write or
 * for the chunks after them: a stream's chunks then share a commit instead of paying one each,
 * which is where the cost of a SQLite write lies.
 *
 * A write that throws is rolled back alone and rejects alone, its neighbours commit: the batch
 * first runs without savepoints (they cost two statements a write), and if a write throws, it is
 * rolled back and run again with a savepoint per write. Every promise settles only after the
 * COMMIT, so a resolved write is exactly as durable as one committed on its own; a COMMIT that
 * fails rejects the whole batch, none of which was written.
 */

import type Database from 'better-sqlite3';
import { asError } from '../../protocol/local-errors.js';

interface PendingWrite {
  readonly options: WriteOptions;
  readonly write: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** How long a write that is not urgent may wait for its commit. */
export const DEFERRED_COMMIT_MS = 1;

/** Writes that make a batch worth committing without waiting longer. */
const FULL_BATCH = 64;

/** What the owner of the writes does around a commit. */
export interface GroupCommitHooks {
  /**
   * Writes what the owner deferred: the last statements of the transaction, the first of a
   * write that needs them (see {@link WriteOptions.afterDeferred}), and, when writes run one
   * savepoint each, the first of every write — outside its savepoint, so that its failure cannot
   * undo them. Throwing fails the batch.
   */
  writeDeferred(): void;
  /** The whole transaction was rolled back: state kept about what the writes did is wrong. */
  onRollback(): void;
  /** A transaction was committed (its writes' promises settle next). */
  onCommit(): void;
}

/** How a write is committed. */
export interface WriteOptions {
  /** Commits at the end of this turn; otherwise within {@link DEFERRED_COMMIT_MS}. */
  readonly urgent: boolean;
  /** Runs after the deferred writes of the transaction so far (it reads or changes their rows). */
  readonly afterDeferred?: boolean;
}

type WriteOutcome =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly value: unknown };

/** Batches writes into one transaction per event-loop turn. */
export class SqliteGroupCommit {
  readonly #db: Database.Database;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  readonly #savepoint: Database.Statement;
  readonly #release: Database.Statement;
  readonly #rollbackToSavepoint: Database.Statement;
  readonly #hooks: GroupCommitHooks;
  #queue: PendingWrite[] = [];
  #immediate: NodeJS.Immediate | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(db: Database.Database, hooks: GroupCommitHooks) {
    this.#db = db;
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
    this.#savepoint = db.prepare('SAVEPOINT write');
    this.#release = db.prepare('RELEASE write');
    this.#rollbackToSavepoint = db.prepare('ROLLBACK TO write');
    this.#hooks = hooks;
  }

  /**
   * Queues `write` (synchronous statements) for the next commit; settles after that commit. An
   * urgent write commits at the end of this turn, another within {@link DEFERRED_COMMIT_MS}.
   */
  enqueue<T>(write: () => T, options: WriteOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, options, resolve: resolve as (value: unknown) => void, reject });
      if (this.#immediate !== undefined) return;
      if (options.urgent || this.#queue.length >= FULL_BATCH)
        this.#immediate = setImmediate(this.#flush);
      else this.#timer ??= setTimeout(this.#flush, DEFERRED_COMMIT_MS);
    });
  }

  /** Commits what is queued now (before the database is closed). */
  flush(): void {
    this.#flush();
  }

  readonly #flush = (): void => {
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#immediate = undefined;
    this.#timer = undefined;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    const result = this.#commitBatch(batch, false);
    if (result instanceof Error) {
      for (const pending of batch) pending.reject(result);
      return;
    }
    batch.forEach((pending, i) => {
      const outcome = result[i] as WriteOutcome;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(asError(outcome.value));
    });
  };

  /**
   * Runs the batch in one transaction and commits it; returns each write's outcome, or the error
   * that failed the whole batch (rolled back). Savepoints cost two statements a write, so the
   * batch first runs without (`isolated` false); if a write throws, the transaction is rolled back
   * and the batch run again from scratch with one savepoint per write (the writes' owner has
   * forgotten what they did).
   */
  #commitBatch(batch: readonly PendingWrite[], isolated: boolean): WriteOutcome[] | Error {
    try {
      this.#begin.run();
    } catch (error) {
      return asError(error);
    }
    const outcomes: WriteOutcome[] = [];
    try {
      for (const pending of batch) {
        if (isolated) {
          // Before the savepoint: a write that writes earlier writes' deferred rows itself (it
          // reads their task) and then fails would roll them back with its own, and lose them.
          this.#hooks.writeDeferred();
          outcomes.push(this.#runInSavepoint(pending.write));
          continue;
        }
        if (pending.options.afterDeferred === true) this.#hooks.writeDeferred();
        try {
          outcomes.push({ ok: true, value: pending.write() });
        } catch (error) {
          // An error that ended the transaction (full disk, I/O) fails the batch below.
          if (!this.#db.inTransaction) throw error;
          this.#rollback.run();
          this.#hooks.onRollback();
          return this.#commitBatch(batch, true);
        }
      }
      this.#hooks.writeDeferred();
      this.#commit.run();
      this.#hooks.onCommit();
      return outcomes;
    } catch (error) {
      if (this.#db.inTransaction) this.#rollback.run();
      this.#hooks.onRollback();
      return asError(error);
    }
  }

  /**
   * Runs one write in a savepoint; a write that throws is undone alone (and must itself forget
   * what it assumed it had written). Throws (failing the batch) when the error has already rolled
   * back the whole transaction, as a full disk or an I/O error does.
   */
  #runInSavepoint(write: () => unknown): WriteOutcome {
    this.#savepoint.run();
    try {
      const value = write();
      this.#release.run();
      return { ok: true, value };
    } catch (error) {
      if (!this.#db.inTransaction) throw error;
      this.#rollbackToSavepoint.run();
      this.#release.run();
      return { ok: false, value: error };
    }
  }
}
