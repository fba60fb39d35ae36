/**
 * Retention for the PostgreSQL store: deleting terminal tasks older than a cutoff, a bounded batch
 * per statement. A task's log, history and artifacts go with it in the same statement (its push
 * configs by `ON DELETE CASCADE`), so no reader ever sees half a task. Rows another transaction holds are skipped,
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
  const n = db.names;
  const result = await db.pool.query<{ purged: string }>({
    name: 'tandem_purge',
    text: `WITH gone AS (
             DELETE FROM ${n.tasks} WHERE key IN (
               SELECT t.key FROM ${n.tasks} AS t
               WHERE t.state IN ${TERMINAL} AND t.status_time < $1
                 AND NOT EXISTS (SELECT 1 FROM ${n.pushConfigs} AS c
                                 WHERE c.task_id = t.id AND c.delivered_seq < t.seq)
               ORDER BY t.status_time LIMIT $2
               FOR UPDATE OF t SKIP LOCKED)
             RETURNING key),
           e AS (DELETE FROM ${n.events} x USING gone WHERE x.task_key = gone.key),
           h AS (DELETE FROM ${n.history} x USING gone WHERE x.task_key = gone.key),
           a AS (DELETE FROM ${n.artifacts} x USING gone WHERE x.task_key = gone.key),
           p AS (DELETE FROM ${n.parts} x USING gone WHERE x.task_key = gone.key)
           SELECT count(*) AS purged FROM gone`,
    values: [terminalBefore, limit],
  });
  return Number(result.rows[0]?.purged ?? 0);
}
