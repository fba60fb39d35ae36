/**
 * Leases and orphans. Lease times are the database's clock (`now()`), never the
 * replicas': every replica compares expiry against the same clock, so clock skew between
 * machines cannot make a live lease look expired or a dead one look alive. `leaseMs` is only a
 * duration. A task without a lease has `lease_holder` NULL and `lease_expires_at` `-infinity`.
 *
 * A lease is live while its own expiry (set when it was taken) or its holder's heartbeat (the
 * holder's row in `lease_holders`, which {@link TaskLeases.renew} moves) is in the future. So a
 * holder's heartbeat is one row written per interval however many tasks it runs, and the task
 * rows are never rewritten to renew them. An orphan is an active task past its own expiry (one
 * range on the running tasks' partial index) whose holder has no live heartbeat. A write that
 * ends a task clears its lease in the same statement (`postgres-batch-statement.ts`), so that
 * giving it up afterwards costs nothing (see {@link postgresLeases}).
 */

import { ACTIVE_STATES } from '../../protocol/task-state.js';
import { orphanFromRow, sqlStateList, type OrphanRow } from '../sql/task-rows.js';
import type { OrphanedTask, TaskLeases } from '../task-store.js';
import { toNumber, type PostgresDatabase } from './postgres-database.js';

/** As the partial index `tasks_running_by_lease` lists them, so that the queries below use it. */
const ACTIVE = sqlStateList(ACTIVE_STATES);

/** Tasks whose lease a terminal write ended, remembered at most (the oldest are forgotten). */
const ENDED_LEASES_KEPT = 10_000;

/**
 * Remembers the tasks whose lease ended with a terminal write of this store, so that the release
 * the runtime sends after such a write (a no-op in the database) sends nothing. Forgetting one
 * only costs that statement.
 */
export class EndedLeases {
  readonly #tasks = new Set<string>();

  ended(taskId: string): void {
    if (this.#tasks.size >= ENDED_LEASES_KEPT) {
      const oldest = this.#tasks.values().next();
      if (oldest.done !== true) this.#tasks.delete(oldest.value);
    }
    this.#tasks.add(taskId);
  }

  /** True (once) when the task's lease is known to be gone already. */
  take(taskId: string): boolean {
    return this.#tasks.delete(taskId);
  }

  /** A lease was taken again: the next release must run. */
  forget(taskId: string): void {
    this.#tasks.delete(taskId);
  }
}

/** The leases of the store on `db`; `ended` knows the leases its terminal writes ended. */
export function postgresLeases(db: PostgresDatabase, ended: EndedLeases): TaskLeases {
  return {
    acquire: (taskId, holder, leaseMs) => {
      ended.forget(taskId);
      return acquireLease(db, taskId, holder, leaseMs);
    },
    renew: (holder, leaseMs) => renewLeases(db, holder, leaseMs),
    release: (taskId, holder) =>
      ended.take(taskId) ? Promise.resolve() : releaseLease(db, taskId, holder),
    findOrphans: (limit, options) => findOrphans(db, limit, options?.ignoreLeases === true),
  };
}

/** SQL: the lease of task row `t` has no live holder heartbeat. */
function noLiveHeartbeat(db: PostgresDatabase): string {
  return `NOT EXISTS (SELECT 1 FROM ${db.names.leaseHolders} h
                      WHERE h.holder = t.lease_holder AND h.expires_at > now())`;
}

/** Takes the lease if it is free, expired or already ours: one conditional update. */
async function acquireLease(
  db: PostgresDatabase,
  taskId: string,
  holder: string,
  leaseMs: number,
): Promise<boolean> {
  const result = await db.pool.query({
    name: 'tandem_acquire_lease',
    text: `UPDATE ${db.names.tasks} t
           SET lease_holder = $2, lease_expires_at = now() + $3::double precision * interval '1 millisecond'
           WHERE id = $1 AND (lease_holder IS NULL OR lease_holder = $2
             OR (lease_expires_at <= now() AND ${noLiveHeartbeat(db)}))`,
    values: [taskId, holder, leaseMs],
  });
  return result.rowCount === 1;
}

/** Extends every lease of `holder` to `leaseMs` from now: its heartbeat, one row. */
async function renewLeases(db: PostgresDatabase, holder: string, leaseMs: number): Promise<void> {
  await db.pool.query({
    name: 'tandem_renew_leases',
    text: `INSERT INTO ${db.names.leaseHolders} (holder, expires_at)
           VALUES ($1, now() + $2::double precision * interval '1 millisecond')
           ON CONFLICT (holder) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
    values: [holder, leaseMs],
  });
}

/** Frees the lease of a task if `holder` holds it. */
async function releaseLease(db: PostgresDatabase, taskId: string, holder: string): Promise<void> {
  await db.pool.query({
    name: 'tandem_release_lease',
    text: `UPDATE ${db.names.tasks}
           SET lease_holder = NULL, lease_expires_at = '-infinity'
           WHERE id = $1 AND lease_holder = $2`,
    values: [taskId, holder],
  });
}

/**
 * Running tasks with no live lease, longest-expired first; with `ignoreLeases`, every running
 * task (for a process that knows it is the store's only user).
 */
async function findOrphans(
  db: PostgresDatabase,
  limit: number,
  ignoreLeases: boolean,
): Promise<OrphanedTask[]> {
  const result = await db.pool.query<Omit<OrphanRow, 'seq'> & { seq: string }>({
    name: ignoreLeases ? 'tandem_find_running' : 'tandem_find_orphans',
    text: `SELECT id, agent, tenant, owner, context_id AS "contextId", seq, state
           FROM ${db.names.tasks} t
           WHERE state IN ${ACTIVE}
             ${ignoreLeases ? '' : `AND lease_expires_at <= now() AND ${noLiveHeartbeat(db)}`}
           ORDER BY lease_expires_at LIMIT $1`,
    values: [limit],
  });
  return result.rows.map((row) => orphanFromRow({ ...row, seq: toNumber(row.seq) }));
}
