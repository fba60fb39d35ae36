/**
 * Retention for the PostgreSQL store: deleting terminal tasks older than a cutoff, a bounded batch
 * per statement. A task's log, history and artifacts go with it (`ON DELETE CASCADE`), in the
 * same statement, so no reader ever sees half a task. Rows another transaction holds are skipped,
 * so replicas purging at the same time neither wait for nor delete the same tasks. A task whose
 * push configs have not received all of its events is kept: its log is their outbox.
 */

import { TERMINAL_STATES } from '../../protocol/task-state.js';
import { sqlStateList } from '../sql/task-rows.js';
import type { TaskRetention } from '../task-store.js';
import type { PostgresDatabase } from './postgres-database.js';

/** As the partial index `tasks_terminal_by_time` lists them, so that the purge uses it. */
const TERMINAL = sqlStateList(TERMINAL_STATES);

/** The retention of the store on `db`. */
export function postgresRetention(db: PostgresDatabase): TaskRetention {
  return { purgeTerminalTasks: (terminalBefore, limit) => purge(db, terminalBefore, limit) };
}

/** Deletes up to `limit` tasks that ended before `terminalBefore`. */
async function purge(db: PostgresDatabase, terminalBefore: number, limit: number): Promise<number> {
  const tasks = db.names.tasks;
  const result = await db.pool.query({
    name: 'tandem_purge',
    text: `DELETE FROM ${tasks} WHERE id IN (
             SELECT t.id FROM ${tasks} AS t
             WHERE t.state IN ${TERMINAL} AND t.status_time < $1
               AND NOT EXISTS (SELECT 1 FROM ${db.names.pushConfigs} AS c
                               WHERE c.task_id = t.id AND c.delivered_seq < t.seq)
             ORDER BY t.status_time LIMIT $2
             FOR UPDATE OF t SKIP LOCKED)`,
    values: [terminalBefore, limit],
  });
  return result.rowCount ?? 0;
}
