/**
 * Leases and orphans. Lease times are the database's clock (`now()`), never the
 * replicas': every replica compares expiry against the same clock, so clock skew between
 * machines cannot make a live lease look expired or a dead one look alive. `leaseMs` is only a
 * duration. A task without a lease has `lease_holder` NULL and `lease_expires_at` `-infinity`,
 * so "no lease or an expired one" is one range on the running tasks' partial index.
 */

import { ACTIVE_STATES } from '../../protocol/task-state.js';
import { orphanFromRow, sqlStateList, type OrphanRow } from '../sql/task-rows.js';
import type { OrphanedTask, TaskLeases } from '../task-store.js';
import { toNumber, type PostgresDatabase } from './postgres-database.js';

/** As the partial index `tasks_running_by_lease` lists them, so that the queries below use it. */
const ACTIVE = sqlStateList(ACTIVE_STATES);

/** The leases of the store on `db`. */
export function postgresLeases(db: PostgresDatabase): TaskLeases {
  return {
    acquire: (taskId, holder, leaseMs) => acquireLease(db, taskId, holder, leaseMs),
    renew: (holder, leaseMs) => renewLeases(db, holder, leaseMs),
    release: (taskId, holder) => releaseLease(db, taskId, holder),
    findOrphans: (limit, options) => findOrphans(db, limit, options?.ignoreLeases === true),
  };
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
    text: `UPDATE ${db.names.tasks}
           SET lease_holder = $2, lease_expires_at = now() + $3::double precision * interval '1 millisecond'
           WHERE id = $1 AND (lease_holder IS NULL OR lease_holder = $2 OR lease_expires_at <= now())`,
    values: [taskId, holder, leaseMs],
  });
  return result.rowCount === 1;
}

/** Extends every lease of `holder` to `leaseMs` from now. */
async function renewLeases(db: PostgresDatabase, holder: string, leaseMs: number): Promise<void> {
  await db.pool.query({
    name: 'tandem_renew_leases',
    text: `UPDATE ${db.names.tasks}
           SET lease_expires_at = now() + $2::double precision * interval '1 millisecond'
           WHERE lease_holder = $1`,
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
           FROM ${db.names.tasks}
           WHERE state IN ${ACTIVE} ${ignoreLeases ? '' : 'AND lease_expires_at <= now()'}
           ORDER BY lease_expires_at LIMIT $1`,
    values: [limit],
  });
  return result.rows.map((row) => orphanFromRow({ ...row, seq: toNumber(row.seq) }));
}
