/**
 * Rows ↔ objects for SQL task stores. A SQL store keeps the projection normalized — one row per
 * history message, per artifact (its fields without parts) and per artifact part — so that every
 * mutation is an INSERT or a one-row UPDATE and never rewrites the task. These helpers hold the
 * parts of that mapping that do not depend on the SQL dialect, so that every store answers
 * `GetTask` exactly as {@link viewOfTask} does for the memory store.
 *
 * JSON columns hold `JSON.stringify` of what the runtime gave, stringified once on write and
 * parsed once on read; event log entries keep the runtime's own string.
 */

import type {
  Artifact,
  Message,
  Part,
  Task,
  TaskState,
  TaskStatus,
} from '../../protocol/generated/types.js';
import type { Struct } from '../../protocol/json.js';
import type { TaskLogEntry } from '../task-store.js';

/** The columns of a task row that a read needs, with JSON columns still as text. */
export interface TaskRow {
  readonly id: string;
  readonly contextId: string;
  readonly state: string;
  /** JSON of the {@link TaskStatus}. */
  readonly status: string;
  /** JSON of the metadata `Struct`, or null when the task has none. */
  readonly metadata: string | null;
  readonly seq: number;
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
  const { name, description, metadata, extensions } = incoming;
  if (
    name === undefined &&
    description === undefined &&
    metadata === undefined &&
    extensions === undefined
  ) {
    return undefined;
  }
  const merged = JSON.parse(fields) as Omit<Artifact, 'parts'>;
  if (name !== undefined) merged.name = name;
  if (description !== undefined) merged.description = description;
  if (metadata !== undefined) merged.metadata = metadata;
  if (extensions !== undefined) merged.extensions = extensions;
  return JSON.stringify(merged);
}

/** An artifact from its row and its parts' JSON texts. */
export function artifactFromRow(row: ArtifactRow, parts: PartTexts): Artifact {
  const fields = JSON.parse(row.fields) as Omit<Artifact, 'parts'>;
  return { ...fields, parts: parts.map((part) => JSON.parse(part) as Part) };
}

/**
 * The `Task` a caller sees, from its row and the history and artifacts already cut to the view
 * (`undefined` = the field is omitted). Field for field what {@link viewOfTask} builds.
 */
export function taskFromRow(
  row: TaskRow,
  history: readonly string[] | undefined,
  artifacts: Artifact[] | undefined,
): Task {
  const task: Task = {
    id: row.id,
    contextId: row.contextId,
    status: JSON.parse(row.status) as TaskStatus,
  };
  if (artifacts !== undefined) task.artifacts = artifacts;
  if (history !== undefined) task.history = history.map((text) => JSON.parse(text) as Message);
  if (row.metadata !== null) task.metadata = JSON.parse(row.metadata) as Struct;
  return task;
}

/** A log entry from its stored sequence number and JSON text. */
export function logEntryFromRow(seq: number, json: string): TaskLogEntry {
  return { seq, payload: JSON.parse(json) as TaskLogEntry['payload'], json };
}
