/**
 * Retention for {@link SqliteTaskStore}: deleting terminal tasks older than a cutoff, a bounded
 * batch per transaction so that a purge never holds the write lock for long. The batch is picked
 * through a partial index of terminal tasks by status time; a task's rows in every table go in
 * the same transaction, so no reader ever sees half a task. A task whose push configs have not
 * received all of its events is kept: its log is their outbox (see `push-store.ts`).
 */

import type Database from 'better-sqlite3';
import { TERMINAL_STATES } from '../../protocol/task-state.js';
import { sqlStateList } from '../sql/task-rows.js';
import { childRangeSql } from './sqlite-task-keys.js';
import { DELETE_PUSH_CONFIGS_OF_KEYS } from './sqlite-push-configs.js';

/** Prepared statements for purging terminal tasks. */
export class SqliteTaskRetention {
  readonly #purge: (terminalBefore: number, limit: number) => number;

  constructor(db: Database.Database) {
    const pick = db
      .prepare<[number, number], number>(
        `SELECT key FROM tasks WHERE state IN ${sqlStateList(TERMINAL_STATES)} AND status_time < ?
           AND NOT EXISTS (SELECT 1 FROM push_configs AS c
                           WHERE c.task_key = tasks.key AND c.delivered_seq < tasks.seq)
         ORDER BY status_time LIMIT ?`,
      )
      .pluck();
    // Each task's child rows are one range of keys (see sqlite-task-keys.ts).
    const deletes = ['task_events', 'task_history', 'task_artifact_parts', 'task_artifacts'].map(
      (table) =>
        db.prepare<[string]>(
          `DELETE FROM ${table} WHERE k IN (
             SELECT c.k FROM json_each(?) AS page
             JOIN ${table} AS c ON ${childRangeSql('c.k', 'page.value')})`,
        ),
    );
    deletes.push(db.prepare<[string]>(DELETE_PUSH_CONFIGS_OF_KEYS));
    const deleteTasks = db.prepare<[string]>(
      'DELETE FROM tasks WHERE key IN (SELECT value FROM json_each(?))',
    );
    const purge = db.transaction((terminalBefore: number, limit: number): number => {
      const keys = pick.all(terminalBefore, limit);
      if (keys.length === 0) return 0;
      const json = JSON.stringify(keys);
      for (const statement of deletes) statement.run(json);
      return deleteTasks.run(json).changes;
    });
    this.#purge = (terminalBefore, limit) => purge.immediate(terminalBefore, limit);
  }

  /** Deletes up to `limit` tasks that reached a terminal state before `terminalBefore`. */
  purge(terminalBefore: number, limit: number): number {
    return limit <= 0 ? 0 : this.#purge(terminalBefore, Math.floor(limit));
  }
}
