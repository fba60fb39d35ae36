/**
 * Reading tasks and logs. Each read is one statement, so it sees one snapshot: a task's history
 * and artifacts always match its seq even while appends go on. Lists of JSON rows are joined into
 * one JSON array text on the server (`string_agg` of the stored text, no parsing there) and parsed
 * once here.
 *
 * Listing is a keyset page on the index (agent, tenant, owner[, context_id | state], status_time
 * DESC, id DESC): it reads `pageSize + 1` rows from the cursor on, and the history and artifacts
 * of the page only, through index ranges (`position >= history_count - historyLength` needs no
 * window over the whole history). `totalSize` is a `count(*)` of the filter, which costs in
 * proportion to the matching tasks (an index-only scan).
 */

import type { QueryConfig } from 'pg';
import type { Artifact, Message, Part, Task } from '../../protocol/generated/types.js';
import { logEntryFromRow, taskFromRow, taskStateOf, type ProjectionRow } from '../sql/task-rows.js';
import type {
  StoredTask,
  TaskListPage,
  TaskListQuery,
  TaskLogEntry,
  TaskReadScope,
  TaskViewOptions,
} from '../task-store.js';
import { toNumber, type PostgresDatabase, type PostgresNames } from './postgres-database.js';
import { StatementParams } from './postgres-statements.js';
import { decodeTaskTraceContext } from '../../telemetry/task-trace-context.js';

/** The columns read for a task, as the row arrives (`bigint` columns as text). */
interface TaskRow extends ProjectionRow {
  readonly seq: string;
  readonly state: string;
  readonly status_time: string;
  /** Comma-separated message JSON; null when not asked for or empty. */
  readonly history: string | null;
  /** Comma-separated `[fields,[part,...]]` JSON; null when not asked for or empty. */
  readonly artifacts: string | null;
  /** See `encodeTaskTraceContext`; read by getTask only. */
  readonly traceContext?: string | null;
}

const TASK_COLUMNS =
  't.id, t.context_id AS "contextId", t.status, t.metadata, t.seq, t.state, t.status_time';
/** The same columns, read again from a page of rows that already names them so. */
const PAGE_COLUMNS = 't.id, t."contextId", t.status, t.metadata, t.seq, t.state, t.status_time';

/** The history of task row `t` the view asks for, or `NULL`. */
function historyColumn(n: PostgresNames, p: StatementParams, view: TaskViewOptions): string {
  const { historyLength } = view;
  if (historyLength === 0) return 'NULL';
  const from =
    historyLength === undefined
      ? ''
      : `AND h.position >= t.history_count - ${p.add(historyLength, 'integer')}`;
  return `(SELECT string_agg(h.message, ',' ORDER BY h.position)
           FROM ${n.history} h WHERE h.task_key = t.key ${from})`;
}

/** The artifacts of task row `t` with their parts, or `NULL` when the view omits them. */
function artifactsColumn(n: PostgresNames, view: TaskViewOptions): string {
  if (view.includeArtifacts === false) return 'NULL';
  return `(SELECT string_agg(
             '[' || a.fields || ',[' || COALESCE(
               (SELECT string_agg(pp.part, ',' ORDER BY pp.position) FROM ${n.parts} pp
                WHERE pp.task_key = a.task_key AND pp.artifact_position = a.position), '') || ']]',
             ',' ORDER BY a.position)
           FROM ${n.artifacts} a WHERE a.task_key = t.key)`;
}

/** The task of a row, its history and artifacts parsed from their aggregated columns. */
function taskOf(row: TaskRow, view: TaskViewOptions): Task {
  let artifacts: Artifact[] | undefined;
  if (view.includeArtifacts !== false) {
    const stored = JSON.parse(`[${row.artifacts ?? ''}]`) as [Omit<Artifact, 'parts'>, Part[]][];
    artifacts = stored.map(([fields, parts]) => ({ ...fields, parts }));
  }
  const history =
    view.historyLength === 0 ? undefined : (JSON.parse(`[${row.history ?? ''}]`) as Message[]);
  return taskFromRow(row, history, artifacts);
}

function storedOf(row: TaskRow, view: TaskViewOptions): StoredTask {
  const stored = { task: taskOf(row, view), seq: toNumber(row.seq), state: taskStateOf(row) };
  // Read by getTask only; a listing's rows have no such column.
  const traceContext = decodeTaskTraceContext(row.traceContext);
  return traceContext === undefined ? stored : { ...stored, traceContext };
}

/** Names a prepared statement after the shape of the view, so each shape is planned once. */
function viewKey(view: TaskViewOptions): string {
  const history =
    view.historyLength === undefined ? 'all' : view.historyLength === 0 ? 'none' : 'last';
  return `${history}_${view.includeArtifacts === false ? 'noart' : 'art'}`;
}

/** Reads one task visible in `scope`. */
export async function getTask(
  db: PostgresDatabase,
  scope: TaskReadScope,
  taskId: string,
  view: TaskViewOptions = {},
): Promise<StoredTask | undefined> {
  const n = db.names;
  const p = new StatementParams();
  const conditions = [
    `t.id = ${p.add(taskId, 'text')}`,
    `t.agent = ${p.add(scope.agent, 'text')}`,
    `t.tenant = ${p.add(scope.tenant, 'text')}`,
  ];
  if (scope.owner !== null) conditions.push(`t.owner = ${p.add(scope.owner, 'text')}`);
  const where = conditions.join(' AND ');
  const query: QueryConfig = {
    name: `tandem_get_task_${scope.owner === null ? 'any_owner_' : ''}${viewKey(view)}`,
    text: `SELECT ${TASK_COLUMNS}, ${historyColumn(n, p, view)} AS history,
             ${artifactsColumn(n, view)} AS artifacts, t.trace_context AS "traceContext"
           FROM ${n.tasks} t WHERE ${where}`,
    values: p.values,
  };
  const result = await db.pool.query<TaskRow>(query);
  const row = result.rows[0];
  return row === undefined ? undefined : storedOf(row, view);
}

/** Lists one keyset page of the tasks visible in `scope`, newest status first. */
export async function listTasks(
  db: PostgresDatabase,
  scope: TaskReadScope,
  query: TaskListQuery,
): Promise<TaskListPage> {
  const n = db.names;
  const p = new StatementParams();
  const filters = [
    `t.agent = ${p.add(scope.agent, 'text')}`,
    `t.tenant = ${p.add(scope.tenant, 'text')}`,
  ];
  if (scope.owner !== null) filters.push(`t.owner = ${p.add(scope.owner, 'text')}`);
  if (query.contextId !== undefined) {
    filters.push(`t.context_id = ${p.add(query.contextId, 'text')}`);
  }
  if (query.state !== undefined) filters.push(`t.state = ${p.add(query.state, 'text')}`);
  if (query.statusTimeFrom !== undefined) {
    filters.push(`t.status_time >= ${p.add(query.statusTimeFrom, 'bigint')}`);
  }
  const matching = filters.join(' AND ');
  const after =
    query.after === undefined
      ? ''
      : `AND (t.status_time, t.id) < (${p.add(query.after.statusTime, 'bigint')}, ${p.add(query.after.id, 'text')})`;
  const size = p.add(query.pageSize, 'integer');
  const text = `
    WITH page AS (
      SELECT ${TASK_COLUMNS}, t.key, t.history_count,
             row_number() OVER (ORDER BY t.status_time DESC, t.id DESC) AS rn
      FROM ${n.tasks} t WHERE ${matching} ${after}
      ORDER BY t.status_time DESC, t.id DESC LIMIT ${size} + 1
    )
    SELECT c.total_size, ${PAGE_COLUMNS}, t.rn,
           CASE WHEN t.rn <= ${size} THEN ${historyColumn(n, p, query)} END AS history,
           CASE WHEN t.rn <= ${size} THEN ${artifactsColumn(n, query)} END AS artifacts
    FROM (${
      query.countTotal === false
        ? 'SELECT NULL::bigint AS total_size'
        : `SELECT count(*) AS total_size FROM ${n.tasks} t WHERE ${matching}`
    }) c
    LEFT JOIN page t ON true
    ORDER BY t.rn`;
  type PageRow = Partial<TaskRow> & {
    readonly total_size: string | null;
    readonly rn: string | null;
  };
  const result = await db.pool.query<PageRow>({ text, values: p.values });
  const tasks: Task[] = [];
  let last: TaskRow | undefined;
  let more = false;
  for (const row of result.rows) {
    if (row.rn === null) break;
    const taskRow = row as TaskRow;
    if (tasks.length === query.pageSize) {
      more = true;
      break;
    }
    tasks.push(taskOf(taskRow, query));
    last = taskRow;
  }
  const total = result.rows[0]?.total_size;
  const counted = query.countTotal === false ? {} : { totalSize: toNumber(total ?? 0) };
  return more && last !== undefined
    ? { tasks, ...counted, next: { statusTime: toNumber(last.status_time), id: last.id } }
    : { tasks, ...counted };
}

/** Reads up to `limit` log entries after `afterSeq`; `undefined` for an unknown task. */
export async function readEvents(
  db: PostgresDatabase,
  taskId: string,
  afterSeq: number,
  limit: number,
): Promise<TaskLogEntry[] | undefined> {
  const n = db.names;
  const result = await db.pool.query<{ seq: string | null; event: string | null }>({
    name: 'tandem_read_events',
    text: `SELECT e.seq, e.event FROM ${n.tasks} t
           LEFT JOIN LATERAL (
             SELECT seq, event FROM ${n.events}
             WHERE task_key = t.key AND seq > $2 ORDER BY seq LIMIT $3
           ) e ON true
           WHERE t.id = $1 ORDER BY e.seq`,
    values: [taskId, afterSeq, limit],
  });
  if (result.rows.length === 0) return undefined;
  const entries: TaskLogEntry[] = [];
  for (const row of result.rows) {
    if (row.seq === null || row.event === null) continue;
    entries.push(logEntryFromRow(toNumber(row.seq), row.event));
  }
  return entries;
}
