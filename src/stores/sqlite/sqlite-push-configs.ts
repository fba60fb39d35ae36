/**
 * The push configs of a {@link SqliteTaskStore} (schema version 5, `push_configs`): prepared
 * statements, each call synchronous. The store runs writes through its group commit, after the
 * deferred task rows, so that a config's starting position is the task's latest seq.
 */

import type Database from 'better-sqlite3';
import type {
  PushConfigPage,
  PushConfigRecord,
  PushDeliveryUpdate,
  PutConfigOptions,
  StoredPushConfig,
} from '../push-store.js';
import type { TaskScope } from '../task-store.js';
import { TERMINAL_STATES } from '../../protocol/task-state.js';
import { InvalidTaskWriteError } from '../../protocol/local-errors.js';
import { sqlStateList } from '../sql/task-rows.js';
import {
  deliveryUpdateValues,
  pushConfigFromRow,
  pushConfigJson,
  type PushConfigRow,
} from '../sql/push-config-rows.js';

const COLUMNS = `t.id AS task_id, c.id, c.config, c.created_at, c.delivered_seq, c.failures,
  c.failing, c.next_attempt_at, c.last_success_at, c.last_error, c.last_error_at, t.seq, t.state,
  t.trace_context`;
const FROM = 'push_configs AS c JOIN tasks AS t ON t.key = c.task_key';
const SCOPED = 't.id = ? AND t.agent = ? AND t.tenant = ? AND t.owner = ?';

interface TaskKeyRow {
  readonly key: number;
  readonly seq: number;
}

/** Prepared statements over `push_configs`. */
export class SqlitePushConfigs {
  readonly #taskKey: Database.Statement<[string, string, string, string], TaskKeyRow>;
  readonly #anyTaskKey: Database.Statement<[string], TaskKeyRow>;
  readonly #insert: Database.Statement<[number, string, string, number, number]>;
  readonly #replace: Database.Statement<[string, number, string]>;
  readonly #getOne: Database.Statement<[string, string, string, string, string], PushConfigRow>;
  readonly #getAny: Database.Statement<[string, string], PushConfigRow>;
  readonly #list: Database.Statement<
    [string, string, string, string, string, number],
    PushConfigRow
  >;
  readonly #delete: Database.Statement<[number, string]>;
  readonly #count: Database.Statement<[number], { n: number }>;
  readonly #due: Database.Statement<[number, string, number], PushConfigRow>;
  readonly #close: Database.Statement<[number]>;
  readonly #setHolder: Database.Statement<[string, number, string]>;
  readonly #releaseOne: Database.Statement<[number, string, string]>;
  readonly #record: Database.Statement<
    [
      number,
      number,
      number,
      number,
      number | null,
      string | null,
      number | null,
      number,
      string,
      string,
    ]
  >;

  constructor(db: Database.Database) {
    this.#taskKey = db.prepare(
      'SELECT key, seq FROM tasks WHERE id = ? AND agent = ? AND tenant = ? AND owner = ?',
    );
    this.#anyTaskKey = db.prepare('SELECT key, seq FROM tasks WHERE id = ?');
    this.#insert = db.prepare(
      `INSERT INTO push_configs (task_key, id, config, created_at, delivered_seq, failures,
         failing, next_attempt_at, open)
       VALUES (?, ?, ?, ?, ?, 0, 0, 0, 1)`,
    );
    this.#replace = db.prepare(
      'UPDATE push_configs SET config = ?, open = 1 WHERE task_key = ? AND id = ?',
    );
    this.#getOne = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${SCOPED} AND c.id = ?`);
    this.#getAny = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE t.id = ? AND c.id = ?`);
    this.#list = db.prepare(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE ${SCOPED} AND c.id > ? ORDER BY c.id LIMIT ?`,
    );
    this.#delete = db.prepare('DELETE FROM push_configs WHERE task_key = ? AND id = ?');
    this.#count = db.prepare('SELECT count(*) AS n FROM push_configs WHERE task_key = ?');
    this.#due = db.prepare(
      `SELECT ${COLUMNS}, c.task_key FROM push_configs AS c INDEXED BY push_configs_due
         JOIN tasks AS t ON t.key = c.task_key
       WHERE c.open = 1 AND c.next_attempt_at <= ? AND c.holder IS NOT ?
         AND c.delivered_seq < t.seq
       ORDER BY c.next_attempt_at LIMIT ?`,
    );
    // Configs that received all of a finished task's events are closed, out of the due index.
    this.#close = db.prepare(
      `UPDATE push_configs SET open = 0
       WHERE open = 1 AND next_attempt_at <= ? AND delivered_seq >= (
         SELECT t.seq FROM tasks AS t
         WHERE t.key = push_configs.task_key AND t.state IN ${sqlStateList(TERMINAL_STATES)})`,
    );
    this.#setHolder = db.prepare(
      'UPDATE push_configs SET holder = ? WHERE task_key = ? AND id = ?',
    );
    this.#releaseOne = db.prepare(
      'UPDATE push_configs SET holder = NULL WHERE task_key = ? AND id = ? AND holder = ?',
    );
    this.#record = db.prepare(
      `UPDATE push_configs SET delivered_seq = ?, failures = ?, failing = ?, next_attempt_at = ?,
         last_success_at = coalesce(?, last_success_at), last_error = coalesce(?, last_error),
         last_error_at = coalesce(?, last_error_at)
       WHERE task_key = ? AND id = ? AND holder = ?`,
    );
  }

  /** Runs inside the store's write transaction, so the count and the insert are one write. */
  put(
    scope: TaskScope,
    config: PushConfigRecord,
    options: PutConfigOptions = {},
  ): StoredPushConfig | undefined | 'limit-reached' {
    const task = this.#taskKey.get(config.taskId, scope.agent, scope.tenant, scope.owner);
    if (task === undefined) return undefined;
    const { fromSeq, maxConfigs } = options;
    const json = pushConfigJson(config);
    if (this.#replace.run(json, task.key, config.id).changes === 0) {
      if (maxConfigs !== undefined && (this.#count.get(task.key)?.n ?? 0) >= maxConfigs) {
        return 'limit-reached';
      }
      const start = Math.min(fromSeq ?? task.seq, task.seq);
      this.#insert.run(task.key, config.id, json, config.createdAt, start);
    }
    return this.get(scope, config.taskId, config.id);
  }

  /**
   * Inserts the configs of a task being created (key `taskKey`), from its first event. Runs in
   * the creation's write; a config the table refuses (two with one id) fails it whole.
   */
  insertForNewTask(taskKey: number, configs: readonly PushConfigRecord[]): void {
    for (const config of configs) {
      try {
        this.#insert.run(taskKey, config.id, pushConfigJson(config), config.createdAt, 0);
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw error;
        throw new InvalidTaskWriteError(
          `The push configs created with task ${config.taskId} must have distinct ids`,
          { cause: error },
        );
      }
    }
  }

  get(scope: TaskScope, taskId: string, id: string): StoredPushConfig | undefined {
    const row = this.#getOne.get(taskId, scope.agent, scope.tenant, scope.owner, id);
    return row === undefined ? undefined : pushConfigFromRow(row);
  }

  list(
    scope: TaskScope,
    taskId: string,
    limit: number,
    afterId: string | undefined,
  ): PushConfigPage | undefined {
    if (this.#taskKey.get(taskId, scope.agent, scope.tenant, scope.owner) === undefined) {
      return undefined;
    }
    const rows = this.#list.all(
      taskId,
      scope.agent,
      scope.tenant,
      scope.owner,
      afterId ?? '',
      limit + 1,
    );
    const configs = rows.slice(0, limit).map(pushConfigFromRow);
    return rows.length > limit
      ? { configs, nextAfterId: configs[configs.length - 1]?.config.id as string }
      : { configs };
  }

  delete(scope: TaskScope, taskId: string, id: string): boolean | undefined {
    const task = this.#taskKey.get(taskId, scope.agent, scope.tenant, scope.owner);
    if (task === undefined) return undefined;
    return this.#delete.run(task.key, id).changes > 0;
  }

  /** Runs inside the store's write transaction (the group commit). */
  claimDue(holder: string, limit: number): StoredPushConfig[] {
    const claimed: StoredPushConfig[] = [];
    if (limit <= 0) return claimed;
    const now = Date.now();
    this.#close.run(now);
    for (const row of this.#due.all(now, holder, limit)) {
      const key = (row as PushConfigRow & { task_key: number }).task_key;
      // One process has the file: another holder is a dead predecessor, never a live one.
      this.#setHolder.run(holder, key, row.id);
      claimed.push(pushConfigFromRow(row));
    }
    return claimed;
  }

  claim(holder: string, taskId: string, id: string): StoredPushConfig | undefined {
    const task = this.#anyTaskKey.get(taskId);
    if (task === undefined) return undefined;
    if (this.#setHolder.run(holder, task.key, id).changes === 0) return undefined;
    const row = this.#getAny.get(taskId, id);
    return row === undefined ? undefined : pushConfigFromRow(row);
  }

  release(holder: string, taskId: string, id: string): void {
    const task = this.#anyTaskKey.get(taskId);
    if (task !== undefined) this.#releaseOne.run(task.key, id, holder);
  }

  record(
    holder: string,
    taskId: string,
    id: string,
    update: PushDeliveryUpdate,
  ): StoredPushConfig | undefined {
    const task = this.#anyTaskKey.get(taskId);
    if (task === undefined) return undefined;
    const changed = this.#record.run(...deliveryUpdateValues(update), task.key, id, holder);
    if (changed.changes === 0) return undefined;
    const row = this.#getAny.get(taskId, id);
    return row === undefined ? undefined : pushConfigFromRow(row);
  }
}

/** Deletes the push configs of the tasks whose keys are in the JSON array bound to it. */
export const DELETE_PUSH_CONFIGS_OF_KEYS =
  'DELETE FROM push_configs WHERE task_key IN (SELECT value FROM json_each(?))';
