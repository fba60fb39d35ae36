/**
 * Leases, orphans and purging. Lease times are the database's clock (`now()`), never the
 * replicas': every replica compares expiry against the same clock, so clock skew between
 * machines cannot make a live lease look expired or a dead one look alive. `leaseMs` is only a
 * duration. A task without a lease has `lease_holder` NULL and `lease_expires_at` `-infinity`,
 * so "no lease or an expired one" is one range on the running tasks' partial index.
 */

import type { TaskState } from '../../protocol/generated/types.js';
import type { OrphanedTask } from '../task-store.js';
import { toNumber, type PostgresDatabase } from './postgres-database.js';
import { RUNNING_STATES, TERMINAL_STATES } from './postgres-schema.js';

/** Takes the lease if it is free, expired or already ours: one conditional update. */
export async function acquireLease(
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
export async function renewLeases(
  db: PostgresDatabase,
  holder: string,
  leaseMs: number,
): Promise<void> {
  await db.pool.query({
    name: 'tandem_renew_leases',
    text: `UPDATE ${db.names.tasks}
           SET lease_expires_at = now() + $2::double precision * interval '1 millisecond'
           WHERE lease_holder = $1`,
    values: [holder, leaseMs],
  });
}

/** Frees the lease of a task if `holder` holds it. */
export async function releaseLease(
  db: PostgresDatabase,
  taskId: string,
  holder: string,
): Promise<void> {
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
export async function findOrphanedTasks(
  db: PostgresDatabase,
  limit: number,
  ignoreLeases: boolean,
): Promise<OrphanedTask[]> {
  const result = await db.pool.query<{
    id: string;
    agent: string;
    tenant: string;
    owner: string;
    context_id: string;
    seq: string;
    state: string;
  }>({
    name: ignoreLeases ? 'tandem_find_running' : 'tandem_find_orphans',
    text: `SELECT id, agent, tenant, owner, context_id, seq, state FROM ${db.names.tasks}
           WHERE state IN ${RUNNING_STATES} ${ignoreLeases ? '' : 'AND lease_expires_at <= now()'}
           ORDER BY lease_expires_at LIMIT $1`,
    values: [limit],
  });
  return result.rows.map((row) => ({
    scope: { agent: row.agent, tenant: row.tenant, owner: row.owner },
    taskId: row.id,
    contextId: row.context_id,
    seq: toNumber(row.seq),
    state: row.state as TaskState,
  }));
}

/**
 * Deletes up to `limit` tasks that ended before `terminalBefore`; their log, history and
 * artifacts go with them (`ON DELETE CASCADE`). Rows another transaction holds are skipped, so
 * replicas purging at the same time neither wait for nor delete the same tasks.
 */
export async function purgeTerminalTasks(
  db: PostgresDatabase,
  terminalBefore: number,
  limit: number,
): Promise<number> {
  const tasks = db.names.tasks;
  const result = await db.pool.query({
    name: 'tandem_purge',
    text: `DELETE FROM ${tasks} WHERE id IN (
             SELECT id FROM ${tasks}
             WHERE state IN ${TERMINAL_STATES} AND status_time < $1
             ORDER BY status_time LIMIT $2
             FOR UPDATE SKIP LOCKED)`,
    values: [terminalBefore, limit],
  });
  return result.rowCount ?? 0;
}
