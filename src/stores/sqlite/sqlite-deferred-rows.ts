/**
 * Row writes that {@link SqliteTaskWrites} defers to the end of the transaction. A task row and
 * its artifact rows carry counters (last seq, next positions) that every append changes, and the
 * task row sits in five indexes: written once per commit with their final values, instead of at
 * every write, a stream's chunks cost no row update each, and a task created and finished within
 * one commit (a short SendMessage) enters its indexes once, already in its final state.
 *
 * Deferred rows are written just before COMMIT (the group commit's `beforeCommit`), and before
 * anything reads them inside the transaction ({@link SqliteDeferredRows.writeTask}); reads outside
 * a transaction never see a deferred state, since every transaction ends with them written.
 */

import type Database from 'better-sqlite3';
import { firstChildKeySql } from './sqlite-task-keys.js';

/** Every column of a new task row. */
export interface TaskRow {
  readonly key: number;
  readonly id: string;
  readonly agent: string;
  readonly tenant: string;
  readonly owner: string;
  readonly contextId: string;
  state: string;
  statusTime: number;
  status: string;
  readonly metadata: string | null;
  seq: number;
  historyCount: number;
  artifactCount: number;
  readonly leaseHolder: string | null;
  readonly leaseExpiresAt: number;
  readonly now: number;
  /** See `encodeTaskTraceContext`. */
  readonly traceContext: string | null;
}

/** The counters of a task row. */
export interface TaskCounters {
  readonly seq: number;
  readonly historyCount: number;
  readonly artifactCount: number;
}

/** The columns of a task row that a status change rewrites. */
export interface TaskStatusColumns {
  readonly state: string;
  readonly statusTime: number;
  readonly status: string;
}

/** What an artifact row's update writes, and the key of its task (which the row's key holds). */
export interface ArtifactRowUpdate {
  readonly taskKey: number;
  readonly fields: string;
  readonly partCount: number;
}

/** The values of {@link TaskRow} in the order of the INSERT's columns. */
type TaskRowValues = [
  key: number,
  id: string,
  agent: string,
  tenant: string,
  owner: string,
  contextId: string,
  state: string,
  statusTime: number,
  status: string,
  metadata: string | null,
  seq: number,
  historyCount: number,
  artifactCount: number,
  leaseHolder: string | null,
  leaseExpiresAt: number,
  now: number,
  traceContext: string | null,
];

/** Task and artifact rows waiting for the end of the transaction. */
export class SqliteDeferredRows {
  readonly #exists;
  readonly #insertTask;
  readonly #updateTask;
  readonly #updateTaskStatus;
  readonly #updateArtifact;
  /** Tasks created in this transaction, not inserted yet. */
  readonly #newRows = new Map<string, TaskRow>();
  /** Counters of existing task rows. */
  readonly #counters = new Map<string, TaskCounters>();
  /** Artifact rows, by task id then position. */
  readonly #artifacts = new Map<string, Map<number, ArtifactRowUpdate>>();

  constructor(db: Database.Database) {
    this.#exists = db.prepare<[string], number>('SELECT 1 FROM tasks WHERE id = ?').pluck();
    // Positional: binding seventeen values from an object costs a property lookup by name each.
    this.#insertTask = db.prepare<TaskRowValues>(
      `INSERT INTO tasks (key, id, agent, tenant, owner, context_id, state, status_time, status,
         metadata, seq, history_count, artifact_count, lease_holder, lease_expires_at, created_at,
         trace_context)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#updateTask = db.prepare<[TaskCounters & { id: string }]>(
      `UPDATE tasks SET seq = @seq, history_count = @historyCount, artifact_count = @artifactCount
       WHERE id = @id`,
    );
    this.#updateTaskStatus = db.prepare<[TaskCounters & TaskStatusColumns & { id: string }]>(
      `UPDATE tasks SET seq = @seq, history_count = @historyCount,
         artifact_count = @artifactCount, state = @state, status_time = @statusTime,
         status = @status
       WHERE id = @id`,
    );
    this.#updateArtifact = db.prepare<[string, number, number, number]>(
      `UPDATE task_artifacts SET fields = ?, part_count = ? WHERE k = ${firstChildKeySql('?')} | ?`,
    );
  }

  /** True if a task with this id exists, written or not. */
  exists(taskId: string): boolean {
    return this.#newRows.has(taskId) || this.#exists.get(taskId) !== undefined;
  }

  /** A new task's row, inserted at the end of the transaction (with later changes applied). */
  insertTask(row: TaskRow): void {
    this.#newRows.set(row.id, row);
  }

  /** New counters for a task row. */
  setCounters(taskId: string, counters: TaskCounters): void {
    const row = this.#newRows.get(taskId);
    if (row === undefined) {
      this.#counters.set(taskId, counters);
      return;
    }
    row.seq = counters.seq;
    row.historyCount = counters.historyCount;
    row.artifactCount = counters.artifactCount;
  }

  /**
   * A status change with new counters: applied to a task row not inserted yet, written now to an
   * existing one (a status change is rare next to chunks, and its index entries move anyway).
   */
  setStatus(taskId: string, counters: TaskCounters, status: TaskStatusColumns): void {
    const row = this.#newRows.get(taskId);
    if (row === undefined) {
      this.#updateTaskStatus.run({ id: taskId, ...counters, ...status });
      // Only once written: if the statement fails, the counters of earlier writes still stand.
      this.#counters.delete(taskId);
      return;
    }
    this.setCounters(taskId, counters);
    row.state = status.state;
    row.statusTime = status.statusTime;
    row.status = status.status;
  }

  /** New values for an artifact row of the task `taskId`. */
  setArtifact(taskId: string, position: number, update: ArtifactRowUpdate): void {
    let rows = this.#artifacts.get(taskId);
    if (rows === undefined) {
      rows = new Map();
      this.#artifacts.set(taskId, rows);
    }
    rows.set(position, update);
  }

  /** Writes everything deferred: last statements of the transaction. */
  writeAll(): void {
    for (const taskId of this.#newRows.keys()) this.writeTask(taskId);
    for (const taskId of this.#counters.keys()) this.writeTask(taskId);
    for (const taskId of this.#artifacts.keys()) this.writeTask(taskId);
  }

  /** Writes what is deferred for one task, before its rows are read inside the transaction. */
  writeTask(taskId: string): void {
    const row = this.#newRows.get(taskId);
    if (row !== undefined) {
      this.#insertTask.run(
        row.key,
        row.id,
        row.agent,
        row.tenant,
        row.owner,
        row.contextId,
        row.state,
        row.statusTime,
        row.status,
        row.metadata,
        row.seq,
        row.historyCount,
        row.artifactCount,
        row.leaseHolder,
        row.leaseExpiresAt,
        row.now,
        row.traceContext,
      );
      this.#newRows.delete(taskId);
    }
    const counters = this.#counters.get(taskId);
    if (counters !== undefined) {
      this.#updateTask.run({ id: taskId, ...counters });
      this.#counters.delete(taskId);
    }
    const artifacts = this.#artifacts.get(taskId);
    if (artifacts !== undefined) {
      for (const [position, update] of artifacts) {
        this.#updateArtifact.run(update.fields, update.partCount, update.taskKey, position);
      }
      this.#artifacts.delete(taskId);
    }
  }

  /** The transaction was rolled back: nothing deferred is to be written. */
  clear(): void {
    this.#newRows.clear();
    this.#counters.clear();
    this.#artifacts.clear();
  }
}
