/**
 * Group commit for the writes of {@link SqliteTaskStore}. A SQLite commit costs far more than the
 * statements it commits — every page the transaction touched goes to the WAL at COMMIT, indexes
 * included — so the writes requested during one turn of the event loop are committed together,
 * in one `BEGIN IMMEDIATE` … `COMMIT` run just after the turn's I/O callbacks (`setImmediate`).
 *
 * Each write runs in its own savepoint: a write that throws is rolled back alone and rejects
 * alone, its neighbours commit. Every promise settles only after the COMMIT, so a resolved write
 * is exactly as durable as one committed on its own; a COMMIT that fails rejects the whole batch,
 * none of which was written.
 */

import type Database from 'better-sqlite3';

interface PendingWrite {
  readonly write: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

type WriteOutcome =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly value: unknown };

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Batches writes into one transaction per event-loop turn. */
export class SqliteGroupCommit {
  readonly #db: Database.Database;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  readonly #savepoint: Database.Statement;
  readonly #release: Database.Statement;
  readonly #rollbackToSavepoint: Database.Statement;
  readonly #onRollback: () => void;
  #queue: PendingWrite[] = [];
  #scheduled = false;

  /**
   * @param onRollback called when writes were rolled back (a failed write, a failed commit), for
   *   whoever keeps state about what the writes did.
   */
  constructor(db: Database.Database, onRollback: () => void) {
    this.#db = db;
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
    this.#savepoint = db.prepare('SAVEPOINT write');
    this.#release = db.prepare('RELEASE write');
    this.#rollbackToSavepoint = db.prepare('ROLLBACK TO write');
    this.#onRollback = onRollback;
  }

  /** Queues `write` (synchronous statements) for the next commit; settles after that commit. */
  enqueue<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  /** Commits what is queued now (before the database is closed). */
  flush(): void {
    this.#flush();
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    try {
      this.#begin.run();
    } catch (error) {
      for (const pending of batch) pending.reject(asError(error));
      return;
    }
    const outcomes: WriteOutcome[] = [];
    try {
      for (const pending of batch) outcomes.push(this.#runInSavepoint(pending.write));
      this.#commit.run();
    } catch (error) {
      if (this.#db.inTransaction) this.#rollback.run();
      this.#onRollback();
      for (const pending of batch) pending.reject(asError(error));
      return;
    }
    batch.forEach((pending, i) => {
      const outcome = outcomes[i] as WriteOutcome;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(asError(outcome.value));
    });
  };

  /**
   * Runs one write in a savepoint; a write that throws is undone alone. Throws (failing the batch)
   * when the error has already rolled back the whole transaction, as a full disk or an I/O error
   * does.
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
      this.#onRollback();
      return { ok: false, value: error };
    }
  }
}
