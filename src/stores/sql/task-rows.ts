/**
 * Rows ↔ objects for the SQL task stores (SQLite and PostgreSQL). A SQL store keeps the projection
 * normalized — one row per history message, per artifact (its fields without parts) and per
 * artifact part — so that every mutation is an INSERT or a one-row UPDATE and never rewrites the
 * task. These helpers hold the parts of that mapping that do not depend on the SQL dialect, so
 * that every store answers `GetTask` exactly as `viewOfTask` does for the memory store.
 *
 * JSON columns hold `JSON.stringify` of what the runtime gave, stringified once on write and
 * parsed once on read; event log entries keep the runtime's own string.
 */

import type {
  Artifact,
  Message,
  Part,
  StreamResponse,
  Task,
  TaskState,
  TaskStatus,
} from '../../protocol/generated/types.js';
import type { Struct } from '../../protocol/json.js';
import { carriesArtifactFields, mergeArtifactFields } from '../../protocol/task-projection.js';
import type { OrphanedTask, TaskLogEntry } from '../task-store.js';

/** The columns of a task row that make its `Task`, with JSON columns still as text. */
export interface ProjectionRow {
  readonly id: string;
  readonly contextId: string;
  /** JSON of the {@link TaskStatus}. */
  readonly status: string;
  /** JSON of the metadata `Struct`, or null when the task has none. */
  readonly metadata: string | null;
}

/** The columns of a task row that a read needs. */
export interface TaskRow extends ProjectionRow {
  readonly state: string;
  readonly seq: number;
}

/** The columns of an active task's row that orphan detection reads. */
export interface OrphanRow {
  readonly agent: string;
  readonly tenant: string;
  readonly owner: string;
  readonly id: string;
  readonly contextId: string;
  readonly seq: number;
  readonly state: string;
}

/**
 * A list of task states as an SQL list, `('A', 'B')`. The state names are constants of the
 * protocol, never user input.
 */
export function sqlStateList(states: readonly TaskState[]): string {
  return `(${states.map((state) => `'${state}'`).join(', ')})`;
}

/** An artifact row: its position in the task and its fields (JSON, without `parts`). */
export interface ArtifactRow {
  readonly position: number;
  readonly fields: string;
}

/** An artifact's parts, in order, as JSON texts. */
export type PartTexts = readonly string[];

/** A task's state column, typed. The store writes it from `status.state` only. */
export function taskStateOf(row: { readonly state: string }): TaskState {
  return row.state as TaskState;
}

/** JSON of an artifact without its parts: what an artifact row stores. */
export function artifactFieldsJson(artifact: Artifact): string {
  const { parts: _parts, ...fields } = artifact;
  return JSON.stringify(fields);
}

/**
 * The artifact fields after an append that carries `incoming`'s name, description, metadata or
 * extensions (each given one replaces the old one); `undefined` when `incoming` carries none, so
 * that the common chunk append neither parses nor rewrites the fields.
 */
export function mergedArtifactFieldsJson(fields: string, incoming: Artifact): string | undefined {
  if (!carriesArtifactFields(incoming)) return undefined;
  const merged = JSON.parse(fields) as Omit<Artifact, 'parts'>;
  mergeArtifactFields(merged, incoming);
  return JSON.stringify(merged);
}

/** An artifact from its row and its parts' JSON texts. */
export function artifactFromRow(row: ArtifactRow, parts: PartTexts): Artifact {
  const fields = JSON.parse(row.fields) as Omit<Artifact, 'parts'>;
  return { ...fields, parts: parts.map((part) => JSON.parse(part) as Part) };
}

/** History messages from their rows' JSON texts. */
export function messagesFromRows(texts: readonly string[]): Message[] {
  return texts.map((text) => JSON.parse(text) as Message);
}

/**
 * The `Task` a caller sees, from its row and the history and artifacts already cut to the view
 * (`undefined` = the field is omitted). Field for field what `viewOfTask` builds.
 */
export function taskFromRow(
  row: ProjectionRow,
  history: Message[] | undefined,
  artifacts: Artifact[] | undefined,
): Task {
  const task: Task = {
    id: row.id,
    contextId: row.contextId,
    status: JSON.parse(row.status) as TaskStatus,
  };
  if (artifacts !== undefined) task.artifacts = artifacts;
  if (history !== undefined) task.history = history;
  if (row.metadata !== null) task.metadata = JSON.parse(row.metadata) as Struct;
  return task;
}

/** A log entry from its stored sequence number and JSON text. */
export function logEntryFromRow(seq: number, json: string): TaskLogEntry {
  return { seq, payload: JSON.parse(json) as StreamResponse, json };
}

/** The orphaned task an active task's row describes. */
export function orphanFromRow(row: OrphanRow): OrphanedTask {
  return {
    scope: { agent: row.agent, tenant: row.tenant, owner: row.owner },
    taskId: row.id,
    contextId: row.contextId,
    seq: row.seq,
    state: taskStateOf(row),
  };
}
