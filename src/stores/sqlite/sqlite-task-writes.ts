/**
 * The write side of {@link SqliteTaskStore}: creating a task and the conditional append, each run
 * inside the store's group commit (see `sqlite-group-commit.ts`).
 *
 * The store has its file to itself (exclusive locking), so what a writer needs to know about a
 * task — its `seq`, which is the version an append is checked against, the next history and
 * artifact positions, where each artifact lives — is kept in memory for the tasks being written
 * (evicted when they finish) instead of being read back before every write. Task rows and the
 * counters of artifact rows are written once per commit, just before it (see
 * `sqlite-deferred-rows.ts`): an artifact chunk then costs one INSERT for its part and one for
 * its event, whatever the task's size. Child rows are keyed by the task's integer key and their
 * position (`sqlite-task-keys.ts`); a new task's key is the next after the largest in the file.
 * A write that fails is rolled back by its savepoint and drops its task from that memory, which
 * is read again from the file (deferred rows written first) next time.
 */

import type Database from 'better-sqlite3';
import type { Artifact, Message, TaskStatus } from '../../protocol/generated/types.js';
import { TaskExistsError } from '../../protocol/local-errors.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { AppendRequest, AppendResult, CreateTaskRequest } from '../task-store.js';
import { artifactFieldsJson, mergedArtifactFieldsJson } from '../sql/task-rows.js';
import { createEventsProblem, lastSeqOf, statusTimeOf } from '../task-log.js';
import { SqliteDeferredRows } from './sqlite-deferred-rows.js';
import { encodeTaskTraceContext } from '../../telemetry/task-trace-context.js';
import {
  checkPosition,
  checkTaskKey,
  childRangeSql,
  firstChildKeySql,
  positionSql,
} from './sqlite-task-keys.js';

/** Where an artifact of a task lives, and what its row holds. */
interface ArtifactSlot {
  readonly position: number;
  partCount: number;
  fields: string;
}

/** What writing a task needs to know; kept between writes while the task is not terminal. */
interface WriteState {
  readonly id: string;
  /** The task's integer key, which its child rows are keyed by. */
  readonly key: number;
  seq: number;
  historyCount: number;
  artifactCount: number;
  /** Artifacts by id, the latest position for a repeated id; loaded on the first artifact write. */
  artifacts: Map<string, ArtifactSlot> | undefined;
  /** The serial of the task's next part, over all its artifacts; loaded with `artifacts`. */
  nextPart: number;
}

/** The status an append sets, if any: the task row's state columns are rewritten only then. */
type StatusChange = TaskStatus | undefined;

/** Write states kept at most; beyond, the least recently created ones are read again when needed. */
const MAX_CACHED_TASKS = 10_000;

/** Prepared statements for writing tasks, and the write states of the tasks being written. */
export class SqliteTaskWrites {
  readonly #selectForWrite;
  readonly #selectArtifacts;
  readonly #selectNextPart;
  readonly #insertHistory;
  readonly #insertEvent;
  readonly #insertArtifact;
  readonly #deleteParts;
  readonly #insertPart;
  readonly #states = new Map<string, WriteState>();
  readonly #deferred: SqliteDeferredRows;
  /** Artifact slots the current append changed; deferred once it succeeds. */
  readonly #touched: ArtifactSlot[] = [];
  /** The key of the next task created; keys of rolled-back creations are not reused. */
  #nextKey: number;

  constructor(db: Database.Database) {
    this.#deferred = new SqliteDeferredRows(db);
    const largestKey = db.prepare<[], number>('SELECT max(key) FROM tasks').pluck().get();
    this.#nextKey = (largestKey ?? 0) + 1;
    this.#selectForWrite = db.prepare<
      [string],
      { key: number; seq: number; historyCount: number; artifactCount: number }
    >(
      `SELECT key, seq, history_count AS historyCount, artifact_count AS artifactCount
       FROM tasks WHERE id = ?`,
    );
    // Plain `?` parameters, bound in order (better-sqlite3 binds `?1` by name, from an object).
    // A position is joined to the shifted key with `|`, which SQLite computes on 64-bit integers:
    // better-sqlite3 binds numbers as floats, and `+` would round keys past 2^53.
    const first = firstChildKeySql('?');
    const ofTask = childRangeSql('k', '?');
    // Ascending, so that the latest position wins for an artifact id given twice.
    this.#selectArtifacts = db.prepare<
      [number, number],
      { artifactId: string; position: number; partCount: number; fields: string }
    >(
      `SELECT artifact_id AS artifactId, ${positionSql('k')} AS position,
         part_count AS partCount, fields
       FROM task_artifacts WHERE ${ofTask} ORDER BY k`,
    );
    // The last part's key, one seek (no row: the task has no parts).
    this.#selectNextPart = db
      .prepare<[number, number], number>(
        `SELECT ${positionSql('k')} + 1 FROM task_artifact_parts
         WHERE ${ofTask} ORDER BY k DESC LIMIT 1`,
      )
      .pluck();
    this.#insertHistory = db.prepare<[number, number, string]>(
      `INSERT INTO task_history (k, message) VALUES (${first} | ?, ?)`,
    );
    this.#insertEvent = db.prepare<[number, number, string]>(
      `INSERT INTO task_events (k, event) VALUES (${first} | ?, ?)`,
    );
    this.#insertArtifact = db.prepare<[number, number, string, string, number]>(
      `INSERT INTO task_artifacts (k, artifact_id, fields, part_count)
       VALUES (${first} | ?, ?, ?, ?)`,
    );
    // A scan of the task's parts: replacing an artifact whole is rare next to appending to one.
    this.#deleteParts = db.prepare<[number, number, number]>(
      `DELETE FROM task_artifact_parts WHERE ${ofTask} AND artifact_position = ?`,
    );
    this.#insertPart = db.prepare<[number, number, number, string]>(
      `INSERT INTO task_artifact_parts (k, artifact_position, part)
       VALUES (${first} | ?, ?, ?)`,
    );
  }

  /**
   * Forgets every write state and deferred update: after a rolled-back transaction, the file is
   * the only truth. Cheap to rebuild — one row read per task on its next write.
   */
  forgetAll(): void {
    this.#states.clear();
    this.#deferred.clear();
  }

  /**
   * Writes the deferred rows; called inside the transaction, just before COMMIT, and before any
   * other write (leases, retention) that reads or changes task rows.
   */
  writeDeferred(): void {
    this.#deferred.writeAll();
  }

  /**
   * Creates a task with its first events; throws if the id exists. Runs inside a transaction.
   * `writeChildren` writes other rows keyed by the task's key (its push configs) in the same
   * write, before anything is remembered: when it throws, the savepoint undoes the whole task.
   */
  create(request: CreateTaskRequest, writeChildren?: (key: number) => void): void {
    const { task, events, scope } = request;
    const problem = createEventsProblem(events);
    if (problem !== undefined) throw problem;
    if (this.#deferred.exists(task.id)) throw new TaskExistsError(task.id);
    const statusTime = statusTimeOf(task.status);
    const key = this.#nextKey;
    checkTaskKey(key);
    this.#nextKey++;
    const state: WriteState = {
      id: task.id,
      key,
      seq: events.length,
      historyCount: 0,
      artifactCount: 0,
      artifacts: new Map(),
      nextPart: 0,
    };
    // No foreign keys (see the schema): the children go first, the row at the end of the commit.
    for (const message of task.history ?? []) this.#addHistory(state, message);
    for (const artifact of task.artifacts ?? []) this.#insertNewArtifact(state, artifact);
    this.#insertEvents(state, events);
    writeChildren?.(key);
    const now = Date.now();
    this.#deferred.insertTask({
      key,
      id: task.id,
      agent: scope.agent,
      tenant: scope.tenant,
      owner: scope.owner,
      contextId: task.contextId ?? '',
      state: task.status.state,
      statusTime,
      status: JSON.stringify(task.status),
      metadata: task.metadata === undefined ? null : JSON.stringify(task.metadata),
      seq: state.seq,
      historyCount: state.historyCount,
      artifactCount: state.artifactCount,
      leaseHolder: request.leaseHolder ?? null,
      leaseExpiresAt: request.leaseHolder === undefined ? 0 : now + (request.leaseMs ?? 0),
      now,
      traceContext: encodeTaskTraceContext(request.traceContext),
    });
    if (!isTerminalState(task.status.state)) this.#remember(state);
  }

  /**
   * Appends events and applies mutations if the task is still at `expectedSeq`. Runs inside a
   * savepoint: if it throws, its statements are rolled back, and so is what it knew of the task.
   */
  append(request: AppendRequest): AppendResult {
    const state = this.#stateOf(request.taskId);
    if (state === undefined || state.seq !== request.expectedSeq) {
      return { ok: false, currentSeq: state?.seq };
    }
    this.#touched.length = 0;
    try {
      const result = this.#appendTo(state, request);
      this.#defer(state);
      return result;
    } catch (error) {
      this.#states.delete(state.id);
      throw error;
    }
  }

  /** Records, after a successful append, the row updates it leaves for the end of the commit. */
  #defer(state: WriteState): void {
    for (const { position, fields, partCount } of this.#touched) {
      this.#deferred.setArtifact(state.id, position, { taskKey: state.key, fields, partCount });
    }
  }

  #appendTo(state: WriteState, request: AppendRequest): AppendResult {
    let status: StatusChange;
    for (const mutation of request.mutations) {
      // Checked first, so that a bad timestamp fails the append before anything is written.
      if (mutation.kind === 'status') statusTimeOf(mutation.status);
    }
    for (const mutation of request.mutations) {
      if (mutation.kind === 'status') status = mutation.status;
      else if (mutation.kind === 'history') this.#addHistory(state, mutation.message);
      else this.#applyArtifact(state, mutation.artifact, mutation.append);
    }
    const seq = lastSeqOf(request.expectedSeq, request.events);
    this.#insertEvents(state, request.events);
    state.seq = seq;
    const { id, historyCount, artifactCount } = state;
    const counters = { seq, historyCount, artifactCount };
    if (status === undefined) {
      this.#deferred.setCounters(id, counters);
      return { ok: true, seq };
    }
    this.#deferred.setStatus(id, counters, {
      state: status.state,
      statusTime: statusTimeOf(status),
      status: JSON.stringify(status),
    });
    if (isTerminalState(status.state)) this.#states.delete(id);
    return { ok: true, seq };
  }

  /** The write state of a task, from memory or from its row; `undefined` if there is no task. */
  #stateOf(taskId: string): WriteState | undefined {
    const known = this.#states.get(taskId);
    if (known !== undefined) return known;
    // Its rows are read back below: they must hold what this transaction wrote so far.
    this.#deferred.writeTask(taskId);
    const row = this.#selectForWrite.get(taskId);
    if (row === undefined) return undefined;
    const state: WriteState = { id: taskId, ...row, artifacts: undefined, nextPart: 0 };
    this.#remember(state);
    return state;
  }

  #remember(state: WriteState): void {
    if (this.#states.size >= MAX_CACHED_TASKS) {
      const oldest = this.#states.keys().next();
      if (oldest.done !== true) this.#states.delete(oldest.value);
    }
    this.#states.set(state.id, state);
  }

  #insertEvents(state: WriteState, events: CreateTaskRequest['events']): void {
    for (const event of events) {
      checkPosition(state.id, 'events', event.seq);
      this.#insertEvent.run(state.key, event.seq, event.json);
    }
  }

  #addHistory(state: WriteState, message: Message): void {
    checkPosition(state.id, 'messages', state.historyCount);
    this.#insertHistory.run(state.key, state.historyCount, JSON.stringify(message));
    state.historyCount++;
  }

  #artifactsOf(state: WriteState): Map<string, ArtifactSlot> {
    if (state.artifacts === undefined) {
      const artifacts = new Map<string, ArtifactSlot>();
      for (const row of this.#selectArtifacts.iterate(state.key, state.key)) {
        artifacts.set(row.artifactId, {
          position: row.position,
          partCount: row.partCount,
          fields: row.fields,
        });
      }
      state.nextPart = this.#selectNextPart.get(state.key, state.key) ?? 0;
      state.artifacts = artifacts;
    }
    return state.artifacts;
  }

  #applyArtifact(state: WriteState, artifact: Artifact, append: boolean): void {
    const slot = this.#artifactsOf(state).get(artifact.artifactId);
    if (slot === undefined) {
      this.#insertNewArtifact(state, artifact);
      return;
    }
    this.#touched.push(slot);
    if (!append) {
      this.#deleteParts.run(state.key, state.key, slot.position);
      slot.fields = artifactFieldsJson(artifact);
      slot.partCount = this.#insertParts(state, slot.position, artifact.parts);
      return;
    }
    slot.partCount += this.#insertParts(state, slot.position, artifact.parts);
    const merged = mergedArtifactFieldsJson(slot.fields, artifact);
    if (merged !== undefined) slot.fields = merged;
  }

  #insertNewArtifact(state: WriteState, artifact: Artifact): void {
    const artifacts = this.#artifactsOf(state);
    const position = state.artifactCount;
    checkPosition(state.id, 'artifacts', position);
    state.artifactCount++;
    const partCount = this.#insertParts(state, position, artifact.parts);
    const fields = artifactFieldsJson(artifact);
    this.#insertArtifact.run(state.key, position, artifact.artifactId, fields, partCount);
    artifacts.set(artifact.artifactId, { position, partCount, fields });
  }

  /** Appends parts to the artifact at `artifactPosition`; returns how many. */
  #insertParts(state: WriteState, artifactPosition: number, parts: Artifact['parts']): number {
    for (const part of parts) {
      checkPosition(state.id, 'artifact parts', state.nextPart);
      this.#insertPart.run(state.key, state.nextPart, artifactPosition, JSON.stringify(part));
      state.nextPart++;
    }
    return parts.length;
  }
}
