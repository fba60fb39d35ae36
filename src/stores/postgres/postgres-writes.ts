/**
 * Creating tasks and appending to them. Every write is conditional on the task row: creation on
 * the id being new (primary key), an append on `seq = expectedSeq`. Under READ COMMITTED a
 * concurrent append blocks on the row lock and then re-checks the condition against the row its
 * rival committed, so the loser updates nothing and is refused — a stale writer can never
 * overwrite newer state, on any replica.
 *
 * The runtime's appends (at most one artifact mutation each) are one statement: version check,
 * log insert, projection change and `pg_notify`, with no explicit transaction. Other appends run
 * the same statements in a transaction.
 */

import type { PoolClient, QueryConfig } from 'pg';
import { InvalidTaskWriteError, TaskExistsError } from '../../protocol/local-errors.js';
import { carriesArtifactFields } from '../../protocol/task-projection.js';
import { artifactFieldsJson, mergedArtifactFieldsJson } from '../sql/task-rows.js';
import { pushConfigJson } from '../sql/push-config-rows.js';
import type { PushConfigRecord } from '../push-store.js';
import { createEventsProblem, lastSeqOf, statusTimeOf } from '../task-log.js';
import type {
  AppendRequest,
  AppendResult,
  CreateTaskRequest,
  TaskLogEntry,
  TaskMutation,
} from '../task-store.js';
import {
  UNIQUE_VIOLATION,
  hasSqlState,
  toNumber,
  withTransaction,
  type PostgresDatabase,
  type PostgresNames,
} from './postgres-database.js';
import {
  StatementParams,
  artifactFieldsQuery,
  artifactStatement,
  artifactUpsert,
  logInserts,
  notifySelect,
  type ArtifactWrite,
} from './postgres-statements.js';

type ArtifactMutation = Extract<TaskMutation, { kind: 'artifact' }>;

/** The mutations of an append, regrouped by the table they change. */
interface WritePlan {
  readonly events: string[];
  readonly messages: string[];
  /** The last status mutation wins, as applying them in order would. */
  status: { json: string; state: string; time: number } | undefined;
  readonly artifacts: ArtifactMutation[];
}

function planOf(events: readonly TaskLogEntry[], mutations: readonly TaskMutation[]): WritePlan {
  const plan: WritePlan = {
    events: events.map((event) => event.json),
    messages: [],
    status: undefined,
    artifacts: [],
  };
  for (const mutation of mutations) {
    switch (mutation.kind) {
      case 'status':
        plan.status = {
          json: JSON.stringify(mutation.status),
          state: mutation.status.state,
          time: statusTimeOf(mutation.status),
        };
        break;
      case 'history':
        plan.messages.push(JSON.stringify(mutation.message));
        break;
      case 'artifact':
        plan.artifacts.push(mutation);
        break;
    }
  }
  return plan;
}

/** The write of an artifact whose stored fields need no reading first. */
function artifactWrite(mutation: ArtifactMutation, fields?: string): ArtifactWrite {
  const { artifact } = mutation;
  return {
    artifactId: artifact.artifactId,
    fields: fields ?? artifactFieldsJson(artifact),
    keepFields: mutation.append && fields === undefined && !carriesArtifactFields(artifact),
    append: mutation.append,
    parts: artifact.parts.map((part) => JSON.stringify(part)),
  };
}

/** Whether the plan fits one statement: its artifact mutation (if any) needs no read first. */
function isSingleStatement(plan: WritePlan): boolean {
  const [first, ...more] = plan.artifacts;
  return (
    more.length === 0 &&
    (first === undefined || !first.append || !carriesArtifactFields(first.artifact))
  );
}

/**
 * Applies artifact mutations one statement each, in order, inside a transaction whose version
 * check already passed. An append that changes fields merges them into the stored ones first,
 * by the rule every store shares (`mergeArtifactFields`).
 */
async function writeArtifacts(
  client: PoolClient,
  n: PostgresNames,
  taskId: string,
  mutations: readonly ArtifactMutation[],
): Promise<void> {
  for (const mutation of mutations) {
    let fields: string | undefined;
    if (mutation.append && carriesArtifactFields(mutation.artifact)) {
      const stored = await client.query<{ fields: string }>(
        artifactFieldsQuery(n, taskId, mutation.artifact.artifactId),
      );
      const old = stored.rows[0];
      if (old !== undefined) fields = mergedArtifactFieldsJson(old.fields, mutation.artifact);
    }
    await client.query(artifactStatement(n, taskId, artifactWrite(mutation, fields)));
  }
}

function createStatement(
  n: PostgresNames,
  request: CreateTaskRequest,
  plan: WritePlan,
  artifact: ArtifactWrite | undefined,
): QueryConfig {
  const { task, scope } = request;
  const p = new StatementParams();
  const status = plan.status;
  if (status === undefined) {
    throw new InvalidTaskWriteError(`Task ${task.id} is created without a status`);
  }
  const holder = p.add(request.leaseHolder ?? null, 'text');
  const row = [
    p.add(task.id, 'text'),
    p.add(scope.agent, 'text'),
    p.add(scope.tenant, 'text'),
    p.add(scope.owner, 'text'),
    p.add(task.contextId ?? '', 'text'),
    p.add(status.state, 'text'),
    p.add(status.time, 'bigint'),
    p.add(status.json, 'text'),
    p.add(task.metadata === undefined ? null : JSON.stringify(task.metadata), 'text'),
    p.add(request.events.length, 'integer'),
    p.add(plan.messages.length, 'integer'),
    holder,
    `CASE WHEN ${holder} IS NULL THEN '-infinity'::timestamptz
       ELSE now() + ${p.add(request.leaseMs ?? 0, 'double precision')} * interval '1 millisecond' END`,
  ];
  const text = `
    WITH t AS (
      INSERT INTO ${n.tasks} (id, agent, tenant, owner, context_id, state, status_time, status,
        metadata, seq, history_count, lease_holder, lease_expires_at)
      VALUES (${row.join(', ')})
      RETURNING id, seq, history_count
    ),
    ${logInserts(n, p, plan.events, plan.messages)}
    ${artifact === undefined ? '' : `, ${artifactUpsert(n, p, artifact)}`}
    ${notifySelect(n, p)}`;
  return { name: artifact ? 'tandem_create_artifact' : 'tandem_create', text, values: p.values };
}

/** Creates a task with its first events; rejects when the id exists. */
export async function createTask(db: PostgresDatabase, request: CreateTaskRequest): Promise<void> {
  const { task, events } = request;
  const problem = createEventsProblem(events);
  if (problem !== undefined) throw problem;
  const mutations: TaskMutation[] = [{ kind: 'status', status: task.status }];
  for (const message of task.history ?? []) mutations.push({ kind: 'history', message });
  for (const artifact of task.artifacts ?? []) {
    mutations.push({ kind: 'artifact', artifact, append: false });
  }
  const plan = planOf(events, mutations);
  const n = db.names;
  const configs = request.pushConfigs ?? [];
  try {
    const [first, ...more] = plan.artifacts;
    if (more.length === 0 && configs.length === 0) {
      await db.pool.query(
        createStatement(n, request, plan, first === undefined ? undefined : artifactWrite(first)),
      );
      return;
    }
    await withTransaction(db, async (client) => {
      await client.query(createStatement(n, request, plan, undefined));
      await writeArtifacts(client, n, task.id, plan.artifacts);
      // In the same transaction: a crash cannot leave the task without its configs.
      await insertNewTaskConfigs(client, n, task.id, configs);
    });
  } catch (error) {
    if (hasSqlState(error, UNIQUE_VIOLATION)) {
      throw new TaskExistsError(task.id, { cause: error });
    }
    throw error;
  }
}

function appendStatement(
  n: PostgresNames,
  request: AppendRequest,
  plan: WritePlan,
  artifact: ArtifactWrite | undefined,
): QueryConfig {
  const p = new StatementParams();
  const id = p.add(request.taskId, 'text');
  const expected = p.add(request.expectedSeq, 'bigint');
  const events = p.add(plan.events.length, 'integer');
  const messages = p.add(plan.messages.length, 'integer');
  const status = plan.status;
  const text = `
    WITH t AS (
      UPDATE ${n.tasks} SET
        seq = seq + ${events},
        history_count = history_count + ${messages},
        status = COALESCE(${p.add(status?.json ?? null, 'text')}, status),
        state = COALESCE(${p.add(status?.state ?? null, 'text')}, state),
        status_time = COALESCE(${p.add(status?.time ?? null, 'bigint')}, status_time)
      WHERE id = ${id} AND seq = ${expected}
      RETURNING id, seq, history_count
    ),
    ${logInserts(n, p, plan.events, plan.messages)}
    ${artifact === undefined ? '' : `, ${artifactUpsert(n, p, artifact)}`}
    ${notifySelect(n, p, `${events} > 0`)}`;
  return { name: artifact ? 'tandem_append_artifact' : 'tandem_append', text, values: p.values };
}

/** Appends events and applies mutations if the task is still at `expectedSeq`. */
export async function appendToTask(
  db: PostgresDatabase,
  request: AppendRequest,
): Promise<AppendResult> {
  const seq = lastSeqOf(request.expectedSeq, request.events);
  const n = db.names;
  const plan = planOf(request.events, request.mutations);
  let applied: boolean;
  if (isSingleStatement(plan)) {
    const [first] = plan.artifacts;
    const artifact = first === undefined ? undefined : artifactWrite(first);
    const result = await db.pool.query(appendStatement(n, request, plan, artifact));
    applied = result.rowCount === 1;
  } else {
    applied = await withTransaction(db, async (client) => {
      const result = await client.query(appendStatement(n, request, plan, undefined));
      if (result.rowCount !== 1) return false;
      await writeArtifacts(client, n, request.taskId, plan.artifacts);
      return true;
    });
  }
  if (applied) return { ok: true, seq };
  const current = await db.pool.query<{ seq: string }>({
    name: 'tandem_current_seq',
    text: `SELECT seq FROM ${n.tasks} WHERE id = $1`,
    values: [request.taskId],
  });
  const row = current.rows[0];
  return { ok: false, currentSeq: row === undefined ? undefined : toNumber(row.seq) };
}

/**
 * Inserts the push configs of a task being created, from its first event, in the creation's
 * transaction; a config the table refuses (two with one id) fails the creation whole.
 */
async function insertNewTaskConfigs(
  client: PoolClient,
  n: PostgresNames,
  taskId: string,
  configs: readonly PushConfigRecord[],
): Promise<void> {
  for (const config of configs) {
    try {
      await client.query({
        name: 'tandem_push_put_new_task',
        text: `INSERT INTO ${n.pushConfigs} (task_id, id, config, created_at, delivered_seq)
               VALUES ($1, $2, $3, $4, 0)`,
        values: [taskId, config.id, pushConfigJson(config), config.createdAt],
      });
    } catch (error) {
      if (!hasSqlState(error, UNIQUE_VIOLATION)) throw error;
      throw new InvalidTaskWriteError(
        `The push configs created with task ${taskId} must have distinct ids`,
        { cause: error },
      );
    }
  }
}
