/**
 * Leases and orphan detection for {@link SqliteTaskStore}. Each lease operation is one UPDATE
 * whose WHERE clause holds the rule — a lease held by another live holder is never taken over —
 * so it is atomic without an explicit transaction. Times are epoch milliseconds of this
 * process's clock, the same clock every process sharing the file on this machine reads.
 */

import type Database from 'better-sqlite3';
import { ACTIVE_STATES } from '../../protocol/task-state.js';
import type { OrphanedTask } from '../task-store.js';
import { orphanFromRow, sqlStateList, type OrphanRow } from '../sql/task-rows.js';

/** As the partial index `tasks_active_by_lease` lists them, so that the queries below use it. */
const ACTIVE = sqlStateList(ACTIVE_STATES);

/** Prepared statements for leases. */
export class SqliteTaskLeases {
  readonly #acquire;
  readonly #renew;
  readonly #release;
  readonly #orphans;
  readonly #active;

  constructor(db: Database.Database) {
    this.#acquire = db.prepare<[{ id: string; holder: string; now: number; expiresAt: number }]>(
      `UPDATE tasks SET lease_holder = @holder, lease_expires_at = @expiresAt
       WHERE id = @id
         AND (lease_holder IS NULL OR lease_holder = @holder OR lease_expires_at <= @now)`,
    );
    this.#renew = db.prepare<[number, string]>(
      'UPDATE tasks SET lease_expires_at = ? WHERE lease_holder = ?',
    );
    // A task without a lease has lease_expires_at = 0 (see the schema).
    this.#release = db.prepare<[string, string]>(
      `UPDATE tasks SET lease_holder = NULL, lease_expires_at = 0
       WHERE id = ? AND lease_holder = ?`,
    );
    // `lease_expires_at <= now` covers "no lease" too (0); the partial index answers it.
    this.#orphans = db.prepare<[number, number], OrphanRow>(
      `SELECT agent, tenant, owner, id, context_id AS contextId, seq, state FROM tasks
       WHERE state IN ${ACTIVE} AND lease_expires_at <= ?
       ORDER BY lease_expires_at LIMIT ?`,
    );
    this.#active = db.prepare<[number], OrphanRow>(
      `SELECT agent, tenant, owner, id, context_id AS contextId, seq, state FROM tasks
       WHERE state IN ${ACTIVE} AND lease_expires_at >= 0
       ORDER BY lease_expires_at LIMIT ?`,
    );
  }

  acquire(taskId: string, holder: string, leaseMs: number): boolean {
    const now = Date.now();
    return this.#acquire.run({ id: taskId, holder, now, expiresAt: now + leaseMs }).changes === 1;
  }

  renew(holder: string, leaseMs: number): void {
    this.#renew.run(Date.now() + leaseMs, holder);
  }

  release(taskId: string, holder: string): void {
    this.#release.run(taskId, holder);
  }

  /** Active tasks without a live lease; with `ignoreLeases`, every active task. */
  findOrphans(limit: number, ignoreLeases: boolean): OrphanedTask[] {
    if (limit <= 0) return [];
    const rows = ignoreLeases ? this.#active.all(limit) : this.#orphans.all(Date.now(), limit);
    return rows.map(orphanFromRow);
  }
}
