/**
 * The write side of {@link SqliteTaskStore}: creating a task and the conditional append. Each is
 * one `BEGIN IMMEDIATE` transaction — it takes the database's write lock before reading the
 * task's `seq`, so that no other connection (or process) can commit in between, and the
 * comparison with the writer's `expectedSeq` is the version check. Every statement is prepared
 * once; an artifact chunk costs one row read plus one INSERT per part, whatever the task's size.
 */

import type Database from 'better-sqlite3';
import type { Artifact, Message, TaskStatus } from '../../protocol/generated/types.js';
import { statusTimeOf } from '../task-projection.js';
import type {
  AppendRequest,
  AppendResult,
  CreateTaskRequest,
  TaskMutation,
} from '../task-store.js';
import { artifactFieldsJson, lastSeqOf, mergedArtifactFieldsJson } from '../sql/task-rows.js';

/** The mutable part of a task row while an append works on it. */
interface WriteState {
  readonly id: string;
  seq: number;
  historyCount: number;
  artifactCount: number;
  status: TaskStatus | undefined;
}

interface ArtifactLookup {
  readonly position: number;
  readonly partCount: number;
  readonly fields: string;
}

/** Prepared statements and transactions for writing tasks. */
export class SqliteTaskWrites {
  readonly #exists;
  readonly #insertTask;
  readonly #selectForWrite;
  readonly #updateTask;
  readonly #insertHistory;
  readonly #insertEvent;
  readonly #findArtifact;
  readonly #insertArtifact;
  readonly #updateArtifact;
  readonly #updatePartCount;
  readonly #deleteParts;
  readonly #insertPart;
  readonly #create: (request: CreateTaskRequest, now: number) => void;
  readonly #append: (request: AppendRequest) => AppendResult;

  constructor(db: Database.Database) {
    this.#exists = db.prepare<[string], number>('SELECT 1 FROM tasks WHERE id = ?').pluck();
    this.#insertTask = db.prepare<
      [
        {
          id: string;
          agent: string;
          tenant: string;
          owner: string;
          contextId: string;
          state: string;
          statusTime: number;
          status: string;
          metadata: string | null;
          historyCount: number;
          artifactCount: number;
          leaseHolder: string | null;
          leaseExpiresAt: number;
          now: number;
        },
      ]
    >(
      `INSERT INTO tasks (id, agent, tenant, owner, context_id, state, status_time, status,
         metadata, seq, history_count, artifact_count, lease_holder, lease_expires_at, created_at)
       VALUES (@id, @agent, @tenant, @owner, @contextId, @state, @statusTime, @status,
         @metadata, 1, @historyCount, @artifactCount, @leaseHolder, @leaseExpiresAt, @now)`,
    );
    this.#selectForWrite = db.prepare<
      [string],
      { seq: number; historyCount: number; artifactCount: number }
    >(
      `SELECT seq, history_count AS historyCount, artifact_count AS artifactCount
       FROM tasks WHERE id = ?`,
    );
    // Status columns are only rewritten when the append changed the status (NULL = keep).
    this.#updateTask = db.prepare<
      [
        {
          id: string;
          seq: number;
          historyCount: number;
          artifactCount: number;
          state: string | null;
          statusTime: number | null;
          status: string | null;
        },
      ]
    >(
      `UPDATE tasks SET seq = @seq, history_count = @historyCount,
         artifact_count = @artifactCount, state = coalesce(@state, state),
         status_time = coalesce(@statusTime, status_time), status = coalesce(@status, status)
       WHERE id = @id`,
    );
    this.#insertHistory = db.prepare<[string, number, string]>(
      'INSERT INTO task_history (task_id, position, message) VALUES (?, ?, ?)',
    );
    this.#insertEvent = db.prepare<[string, number, string]>(
      'INSERT INTO task_events (task_id, seq, event) VALUES (?, ?, ?)',
    );
    // Artifact ids are unique within a task in practice; if not, the latest one is updated.
    this.#findArtifact = db.prepare<[string, string], ArtifactLookup>(
      `SELECT position, part_count AS partCount, fields FROM task_artifacts
       WHERE task_id = ? AND artifact_id = ? ORDER BY position DESC LIMIT 1`,
    );
    this.#insertArtifact = db.prepare<[string, number, string, string, number]>(
      `INSERT INTO task_artifacts (task_id, position, artifact_id, fields, part_count)
       VALUES (?, ?, ?, ?, ?)`,
    );
    this.#updateArtifact = db.prepare<[string, number, string, number]>(
      'UPDATE task_artifacts SET fields = ?, part_count = ? WHERE task_id = ? AND position = ?',
    );
    this.#updatePartCount = db.prepare<[number, string, number]>(
      'UPDATE task_artifacts SET part_count = ? WHERE task_id = ? AND position = ?',
    );
    this.#deleteParts = db.prepare<[string, number]>(
      'DELETE FROM task_artifact_parts WHERE task_id = ? AND artifact_position = ?',
    );
    this.#insertPart = db.prepare<[string, number, number, string]>(
      `INSERT INTO task_artifact_parts (task_id, artifact_position, position, part)
       VALUES (?, ?, ?, ?)`,
    );
    const create = db.transaction((request: CreateTaskRequest, now: number) =>
      this.#createInTransaction(request, now),
    );
    this.#create = (request, now) => create.immediate(request, now);
    const append = db.transaction((request: AppendRequest) => this.#appendInTransaction(request));
    this.#append = (request) => append.immediate(request);
  }

  /** Creates a task with its first event; throws if the id exists. */
  create(request: CreateTaskRequest): void {
    this.#create(request, Date.now());
  }

  /** Appends events and applies mutations if the task is still at `expectedSeq`. */
  append(request: AppendRequest): AppendResult {
    return this.#append(request);
  }

  #createInTransaction(request: CreateTaskRequest, now: number): void {
    const { task, event, scope } = request;
    if (event.seq !== 1) throw new Error('The first event of a task has seq 1');
    if (this.#exists.get(task.id) !== undefined) throw new Error(`Task ${task.id} already exists`);
    const state: WriteState = {
      id: task.id,
      seq: 1,
      historyCount: 0,
      artifactCount: 0,
      status: undefined,
    };
    // No foreign keys (see the schema): the children can go first, then the row with its counters.
    for (const message of task.history ?? []) this.#addHistory(state, message);
    for (const artifact of task.artifacts ?? []) this.#insertNewArtifact(state, artifact);
    this.#insertEvent.run(task.id, 1, event.json);
    this.#insertTask.run({
      id: task.id,
      agent: scope.agent,
      tenant: scope.tenant,
      owner: scope.owner,
      contextId: task.contextId ?? '',
      state: task.status.state,
      statusTime: statusTimeOf(task.status),
      status: JSON.stringify(task.status),
      metadata: task.metadata === undefined ? null : JSON.stringify(task.metadata),
      historyCount: state.historyCount,
      artifactCount: state.artifactCount,
      leaseHolder: request.leaseHolder ?? null,
      leaseExpiresAt: request.leaseHolder === undefined ? 0 : now + (request.leaseMs ?? 0),
      now,
    });
  }

  #appendInTransaction(request: AppendRequest): AppendResult {
    const row = this.#selectForWrite.get(request.taskId);
    if (row === undefined || row.seq !== request.expectedSeq) {
      return { ok: false, currentSeq: row?.seq };
    }
    const seq = lastSeqOf(request.expectedSeq, request.events);
    const state: WriteState = { id: request.taskId, ...row, seq, status: undefined };
    for (const mutation of request.mutations) this.#apply(state, mutation);
    for (const event of request.events) this.#insertEvent.run(state.id, event.seq, event.json);
    this.#save(state);
    return { ok: true, seq };
  }

  #save(state: WriteState): void {
    const { status } = state;
    this.#updateTask.run({
      id: state.id,
      seq: state.seq,
      historyCount: state.historyCount,
      artifactCount: state.artifactCount,
      state: status === undefined ? null : status.state,
      statusTime: status === undefined ? null : statusTimeOf(status),
      status: status === undefined ? null : JSON.stringify(status),
    });
  }

  #apply(state: WriteState, mutation: TaskMutation): void {
    switch (mutation.kind) {
      case 'status':
        // Validated now so that a bad timestamp fails the transaction before anything is saved.
        statusTimeOf(mutation.status);
        state.status = mutation.status;
        return;
      case 'history':
        this.#addHistory(state, mutation.message);
        return;
      case 'artifact':
        this.#applyArtifact(state, mutation.artifact, mutation.append);
        return;
    }
  }

  #addHistory(state: WriteState, message: Message): void {
    this.#insertHistory.run(state.id, state.historyCount, JSON.stringify(message));
    state.historyCount++;
  }

  #applyArtifact(state: WriteState, artifact: Artifact, append: boolean): void {
    const found = this.#findArtifact.get(state.id, artifact.artifactId);
    if (found === undefined) {
      this.#insertNewArtifact(state, artifact);
      return;
    }
    if (!append) {
      this.#deleteParts.run(state.id, found.position);
      this.#updateArtifact.run(
        artifactFieldsJson(artifact),
        this.#insertParts(state.id, found.position, 0, artifact.parts),
        state.id,
        found.position,
      );
      return;
    }
    const partCount = this.#insertParts(state.id, found.position, found.partCount, artifact.parts);
    const merged = mergedArtifactFieldsJson(found.fields, artifact);
    if (merged === undefined) {
      this.#updatePartCount.run(partCount, state.id, found.position);
    } else {
      this.#updateArtifact.run(merged, partCount, state.id, found.position);
    }
  }

  #insertNewArtifact(state: WriteState, artifact: Artifact): void {
    const position = state.artifactCount++;
    const partCount = this.#insertParts(state.id, position, 0, artifact.parts);
    this.#insertArtifact.run(
      state.id,
      position,
      artifact.artifactId,
      artifactFieldsJson(artifact),
      partCount,
    );
  }

  /** Inserts parts from position `from`; returns the next free part position. */
  #insertParts(
    taskId: string,
    artifactPosition: number,
    from: number,
    parts: Artifact['parts'],
  ): number {
    let position = from;
    for (const part of parts) {
      this.#insertPart.run(taskId, artifactPosition, position, JSON.stringify(part));
      position++;
    }
    return position;
  }
}
