/**
 * The read side of {@link SqliteTaskStore}: `GetTask`, `ListTasks` and the event log.
 *
 * A page of tasks costs a bounded number of statements whatever its size or the number of tasks:
 * the keyset query (`(status_time, id) < cursor ORDER BY status_time DESC, id DESC LIMIT n + 1`,
 * an index range scan), a `count(*)` for `totalSize`, then the history, the artifacts and their
 * parts of the whole page, one statement each, the page's ids passed as one JSON array. A task's
 * child rows are one range of keys (`sqlite-task-keys.ts`), and the history cut
 * (`historyLength = n`) starts that range at position `history_count - n`, so only the returned
 * messages are read.
 */

import type Database from 'better-sqlite3';
import { decodeTaskTraceContext } from '../../telemetry/task-trace-context.js';
import type { Artifact, Task } from '../../protocol/generated/types.js';
import type {
  StoredTask,
  TaskListPage,
  TaskListQuery,
  TaskLogEntry,
  TaskReadScope,
  TaskViewOptions,
} from '../task-store.js';
import {
  artifactFromRow,
  logEntryFromRow,
  messagesFromRows,
  taskFromRow,
  taskStateOf,
  type ArtifactRow,
  type TaskRow,
} from '../sql/task-rows.js';
import {
  MAX_POSITION,
  childRangeSql,
  endChildKeySql,
  firstChildKeySql,
  positionSql,
} from './sqlite-task-keys.js';

interface ListedRow extends TaskRow {
  readonly statusTime: number;
}

interface TaskRowWithKey extends ListedRow {
  readonly key: number;
  readonly historyCount: number;
  /** See `encodeTaskTraceContext`. */
  readonly traceContext: string | null;
}

interface ListParameters {
  agent: string;
  tenant: string;
  /** Absent: every owner's tasks (an operator's read, see `TaskReadScope`). */
  owner?: string;
  contextId?: string;
  state?: string;
  statusTimeFrom?: number;
  afterTime?: number;
  afterId?: string;
  limit?: number;
}

const TASK_COLUMNS = `id, context_id AS contextId, state, status, metadata, seq,
  status_time AS statusTime`;

/** The first key of the child rows of the task `t`. */
const T_FIRST = firstChildKeySql('t.key');

/** `n` for "every message": larger than any history, still an SQLite integer. */
const ALL = Number.MAX_SAFE_INTEGER;

/** Prepared statements for reading tasks. */
export class SqliteTaskReads {
  readonly #db: Database.Database;
  readonly #getTask;
  readonly #getAnyOwnersTask;
  readonly #taskExists;
  readonly #pageHistory;
  readonly #pageArtifacts;
  readonly #pageParts;
  readonly #readEvents;
  readonly #taskHistory;
  readonly #taskArtifacts;
  readonly #taskParts;
  /** Listing statements by filter combination: at most 32 pages and 16 counts. */
  readonly #pages = new Map<string, Database.Statement<[ListParameters], ListedRow>>();
  readonly #counts = new Map<string, Database.Statement<[ListParameters], number>>();

  constructor(db: Database.Database) {
    this.#db = db;
    this.#getTask = db.prepare<[string, string, string, string], TaskRowWithKey>(
      `SELECT ${TASK_COLUMNS}, key, history_count AS historyCount, trace_context AS traceContext
       FROM tasks WHERE id = ? AND agent = ? AND tenant = ? AND owner = ?`,
    );
    this.#getAnyOwnersTask = db.prepare<[string, string, string], TaskRowWithKey>(
      `SELECT ${TASK_COLUMNS}, key, history_count AS historyCount, trace_context AS traceContext
       FROM tasks WHERE id = ? AND agent = ? AND tenant = ?`,
    );
    this.#taskExists = db.prepare<[string], number>('SELECT 1 FROM tasks WHERE id = ?').pluck();
    // max(0, …): a cut longer than the history must not reach into the previous task's keys.
    // Positions are joined to shifted keys with `|`, on 64-bit integers (see sqlite-task-writes).
    this.#pageHistory = db.prepare<
      [{ ids: string; historyLength: number }],
      { taskId: string; message: string }
    >(
      `SELECT t.id AS taskId, h.message
       FROM json_each(@ids) AS page
       JOIN tasks AS t ON t.id = page.value
       JOIN task_history AS h
         ON ${childRangeSql('h.k', 't.key')}
           AND h.k >= ${T_FIRST} | max(0, t.history_count - @historyLength)
       ORDER BY page.key, h.k`,
    );
    this.#pageArtifacts = db.prepare<[string], ArtifactRow & { taskId: string }>(
      `SELECT t.id AS taskId, ${positionSql('a.k')} AS position, a.fields
       FROM json_each(?) AS page
       JOIN tasks AS t ON t.id = page.value
       JOIN task_artifacts AS a ON ${childRangeSql('a.k', 't.key')}
       ORDER BY page.key, a.k`,
    );
    this.#pageParts = db.prepare<
      [string],
      { taskId: string; artifactPosition: number; part: string }
    >(
      `SELECT t.id AS taskId, p.artifact_position AS artifactPosition, p.part
       FROM json_each(?) AS page
       JOIN tasks AS t ON t.id = page.value
       JOIN task_artifact_parts AS p ON ${childRangeSql('p.k', 't.key')}
       ORDER BY page.key, p.k`,
    );
    this.#readEvents = db.prepare<[number, string, number], { seq: number; event: string }>(
      `SELECT ${positionSql('e.k')} AS seq, e.event
       FROM tasks AS t
       JOIN task_events AS e ON ${childRangeSql('e.k', 't.key')} AND e.k > ${T_FIRST} | ?
       WHERE t.id = ? ORDER BY e.k LIMIT ?`,
    );
    // Plain `?` parameters, bound in order (better-sqlite3 binds `?1` by name, from an object).
    const ofTask = childRangeSql('k', '?');
    this.#taskHistory = db
      .prepare<[number, number, number], string>(
        `SELECT message FROM task_history
         WHERE k >= ${firstChildKeySql('?')} | ? AND k < ${endChildKeySql('?')}
         ORDER BY k`,
      )
      .pluck();
    this.#taskArtifacts = db.prepare<[number, number], ArtifactRow>(
      `SELECT ${positionSql('k')} AS position, fields FROM task_artifacts
       WHERE ${ofTask} ORDER BY k`,
    );
    this.#taskParts = db.prepare<[number, number], { artifactPosition: number; part: string }>(
      `SELECT artifact_position AS artifactPosition, part FROM task_artifact_parts
       WHERE ${ofTask} ORDER BY k`,
    );
  }

  // Reads need no transaction of their own: the store is this process's alone (exclusive
  // locking) and better-sqlite3 runs each call to completion, so the statements of one read all
  // see the same committed state.

  getTask(
    scope: TaskReadScope,
    taskId: string,
    view: TaskViewOptions = {},
  ): StoredTask | undefined {
    const row =
      scope.owner === null
        ? this.#getAnyOwnersTask.get(taskId, scope.agent, scope.tenant)
        : this.#getTask.get(taskId, scope.agent, scope.tenant, scope.owner);
    if (row === undefined) return undefined;
    const { historyLength } = view;
    const history =
      historyLength !== undefined && historyLength <= 0
        ? undefined
        : messagesFromRows(
            this.#taskHistory.all(
              row.key,
              historyLength === undefined
                ? 0
                : Math.max(0, Math.ceil(row.historyCount - historyLength)),
              row.key,
            ),
          );
    const artifacts = view.includeArtifacts === false ? undefined : this.#artifactsOf(row.key);
    const stored = {
      task: taskFromRow(row, history, artifacts),
      seq: row.seq,
      state: taskStateOf(row),
    };
    const traceContext = decodeTaskTraceContext(row.traceContext);
    return traceContext === undefined ? stored : { ...stored, traceContext };
  }

  #artifactsOf(taskKey: number): Artifact[] {
    const rows = this.#taskArtifacts.all(taskKey, taskKey);
    if (rows.length === 0) return [];
    const parts: string[][] = rows.map(() => []);
    const slot = new Map(rows.map((row, i) => [row.position, i]));
    for (const part of this.#taskParts.iterate(taskKey, taskKey)) {
      const i = slot.get(part.artifactPosition);
      if (i !== undefined) parts[i]?.push(part.part);
    }
    return rows.map((row, i) => artifactFromRow(row, parts[i] ?? []));
  }

  listTasks(scope: TaskReadScope, query: TaskListQuery): TaskListPage {
    return this.#readPage(scope, query);
  }

  #readPage(scope: TaskReadScope, query: TaskListQuery): TaskListPage {
    const filters: ListParameters = { agent: scope.agent, tenant: scope.tenant };
    if (scope.owner !== null) filters.owner = scope.owner;
    if (query.contextId !== undefined) filters.contextId = query.contextId;
    if (query.state !== undefined) filters.state = query.state;
    if (query.statusTimeFrom !== undefined) filters.statusTimeFrom = query.statusTimeFrom;
    const counted =
      query.countTotal === false ? {} : { totalSize: this.#count(filters).get(filters) ?? 0 };
    if (query.pageSize <= 0) return { tasks: [], ...counted };
    const page: ListParameters = { ...filters, limit: query.pageSize + 1 };
    if (query.after !== undefined) {
      page.afterTime = query.after.statusTime;
      page.afterId = query.after.id;
    }
    const rows = this.#page(page).all(page);
    const more = rows.length > query.pageSize;
    if (more) rows.length = query.pageSize;
    const tasks = this.#assemble(rows, query);
    const last = rows[rows.length - 1];
    return more && last !== undefined
      ? { tasks, ...counted, next: { statusTime: last.statusTime, id: last.id } }
      : { tasks, ...counted };
  }

  readEvents(taskId: string, afterSeq: number, limit: number): TaskLogEntry[] | undefined {
    const count = limit > 0 ? Math.min(Math.floor(limit), ALL) : 0;
    // Within the task's keys: a seq below 0 reads from the start, one past the last reads nothing.
    const after = Math.min(Math.max(Math.floor(afterSeq), 0), MAX_POSITION);
    const rows = count === 0 ? [] : this.#readEvents.all(after, taskId, count);
    if (rows.length === 0 && this.#taskExists.get(taskId) === undefined) return undefined;
    return rows.map((row) => logEntryFromRow(row.seq, row.event));
  }

  #count(parameters: ListParameters): Database.Statement<[ListParameters], number> {
    const where = whereOf(parameters);
    let statement = this.#counts.get(where);
    if (statement === undefined) {
      statement = this.#db
        .prepare<[ListParameters], number>(`SELECT count(*) FROM tasks WHERE ${where}`)
        .pluck();
      this.#counts.set(where, statement);
    }
    return statement;
  }

  #page(parameters: ListParameters): Database.Statement<[ListParameters], ListedRow> {
    const where = whereOf(parameters);
    let statement = this.#pages.get(where);
    if (statement === undefined) {
      statement = this.#db.prepare<[ListParameters], ListedRow>(
        `SELECT ${TASK_COLUMNS} FROM tasks WHERE ${where}
         ORDER BY status_time DESC, id DESC LIMIT @limit`,
      );
      this.#pages.set(where, statement);
    }
    return statement;
  }

  /** Builds the tasks of `rows`, in order, with their history and artifacts cut to `view`. */
  #assemble(rows: readonly TaskRow[], view: TaskViewOptions): Task[] {
    if (rows.length === 0) return [];
    const ids = JSON.stringify(rows.map((row) => row.id));
    const histories = this.#histories(ids, view.historyLength);
    const artifacts = view.includeArtifacts === false ? undefined : this.#artifacts(ids);
    return rows.map((row) =>
      taskFromRow(
        row,
        histories === undefined ? undefined : messagesFromRows(histories.get(row.id) ?? []),
        artifacts === undefined ? undefined : (artifacts.get(row.id) ?? []),
      ),
    );
  }

  #histories(ids: string, historyLength: number | undefined): Map<string, string[]> | undefined {
    if (historyLength !== undefined && historyLength <= 0) return undefined;
    const byTask = new Map<string, string[]>();
    // Whole, so that the position it gives is one (`|` would truncate a fraction the wrong way).
    const length = historyLength === undefined ? ALL : Math.floor(historyLength);
    for (const row of this.#pageHistory.iterate({ ids, historyLength: length })) {
      append(byTask, row.taskId, row.message);
    }
    return byTask;
  }

  #artifacts(ids: string): Map<string, Artifact[]> {
    const parts = new Map<string, string[]>();
    for (const row of this.#pageParts.iterate(ids)) {
      append(parts, `${row.artifactPosition}:${row.taskId}`, row.part);
    }
    const byTask = new Map<string, Artifact[]>();
    for (const row of this.#pageArtifacts.iterate(ids)) {
      const artifact = artifactFromRow(row, parts.get(`${row.position}:${row.taskId}`) ?? []);
      append(byTask, row.taskId, artifact);
    }
    return byTask;
  }
}

/** The WHERE clause for the filters present in `parameters`; also the statement cache key. */
function whereOf(parameters: ListParameters): string {
  const conditions = ['agent = @agent', 'tenant = @tenant'];
  if (parameters.owner !== undefined) conditions.push('owner = @owner');
  if (parameters.contextId !== undefined) conditions.push('context_id = @contextId');
  // With a context too, `+` keeps the planner on the context index: a context has few tasks.
  if (parameters.state !== undefined) {
    conditions.push(parameters.contextId === undefined ? 'state = @state' : '+state = @state');
  }
  if (parameters.statusTimeFrom !== undefined) conditions.push('status_time >= @statusTimeFrom');
  if (parameters.afterId !== undefined) {
    conditions.push('(status_time, id) < (@afterTime, @afterId)');
  }
  return conditions.join(' AND ');
}

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
