/**
 * How a task's events change the `Task` that `GetTask` returns (its projection), and how much of
 * it a caller sees. The runtime derives a {@link TaskMutation} from every event it appends, and
 * every task store applies them — the stores that keep tasks as objects with {@link
 * applyMutation}, the SQL stores in their own statements with {@link mergeArtifactFields} — so
 * that every store, and the projection the runtime keeps of a task it is running, answer
 * identically. Pure functions, no I/O.
 */

import type { Artifact, Message, Task, TaskStatus } from './generated/types.js';
import type { Struct } from './json.js';
import { artifactWithParts } from './copies.js';

/** A change to a task's projection. The runtime derives these from the events it appends. */
export type TaskMutation =
  /** Replace the status (state, message, timestamp). */
  | { readonly kind: 'status'; readonly status: TaskStatus }
  /** Append a message to the history. */
  | { readonly kind: 'history'; readonly message: Message }
  /**
   * Add an artifact, or update the one with the same id: with `append`, its parts are appended
   * and any name, description, metadata or extensions given replace the old ones (see {@link
   * mergeArtifactFields}); without, the artifact is replaced whole.
   */
  | { readonly kind: 'artifact'; readonly artifact: Artifact; readonly append: boolean };

/** How much of a task to return. */
export interface TaskViewOptions {
  /** Unset: the whole history; 0: no `history` field; n: the n most recent messages. */
  readonly historyLength?: number;
  /** `false` omits the `artifacts` field entirely. Defaults to `true`. */
  readonly includeArtifacts?: boolean;
}

/** A task projection being maintained in memory. Its arrays are owned by whoever maintains it. */
export interface MutableTaskProjection {
  readonly id: string;
  readonly contextId: string;
  status: TaskStatus;
  history: Message[];
  artifacts: Artifact[];
  metadata: Struct | undefined;
}

/** A projection of `task` that owns its arrays: later mutations never reach `task`. */
export function projectionOf(task: Task): MutableTaskProjection {
  return {
    id: task.id,
    contextId: task.contextId ?? '',
    status: task.status,
    history: task.history?.slice() ?? [],
    artifacts: (task.artifacts ?? []).map((artifact) =>
      artifactWithParts(artifact, artifact.parts.slice()),
    ),
    metadata: task.metadata,
  };
}

/** Whether an appended chunk carries fields that replace the artifact's (not only parts). */
export function carriesArtifactFields(incoming: Artifact): boolean {
  return (
    incoming.name !== undefined ||
    incoming.description !== undefined ||
    incoming.metadata !== undefined ||
    incoming.extensions !== undefined
  );
}

/**
 * Applies the fields of an appended chunk to the artifact's fields, in place: each of `name`,
 * `description`, `metadata` and `extensions` that `incoming` gives replaces the old one; the
 * others stay. The one rule of the artifact merge, shared by every store.
 */
export function mergeArtifactFields(fields: Omit<Artifact, 'parts'>, incoming: Artifact): void {
  if (incoming.name !== undefined) fields.name = incoming.name;
  if (incoming.description !== undefined) fields.description = incoming.description;
  if (incoming.metadata !== undefined) fields.metadata = incoming.metadata;
  if (incoming.extensions !== undefined) fields.extensions = incoming.extensions;
}

/** Applies one mutation in place, in O(size of the mutation) (plus a lookup of the artifact). */
export function applyMutation(task: MutableTaskProjection, mutation: TaskMutation): void {
  switch (mutation.kind) {
    case 'status':
      task.status = mutation.status;
      return;
    case 'history':
      task.history.push(mutation.message);
      return;
    case 'artifact': {
      const incoming = mutation.artifact;
      const index = findArtifact(task.artifacts, incoming.artifactId);
      if (index < 0) {
        task.artifacts.push(artifactWithParts(incoming, incoming.parts.slice()));
        return;
      }
      if (!mutation.append) {
        task.artifacts[index] = artifactWithParts(incoming, incoming.parts.slice());
        return;
      }
      const existing = task.artifacts[index] as Artifact;
      for (const part of incoming.parts) existing.parts.push(part);
      mergeArtifactFields(existing, incoming);
      return;
    }
  }
}

function findArtifact(artifacts: Artifact[], artifactId: string): number {
  // Agents append to their latest artifact almost always: search from the end.
  for (let i = artifacts.length - 1; i >= 0; i--) {
    if ((artifacts[i] as Artifact).artifactId === artifactId) return i;
  }
  return -1;
}

/**
 * Builds the `Task` a caller sees: history cut to `historyLength` (spec 3.2.4), artifacts omitted
 * when `includeArtifacts` is false (spec 3.1.4). The result shares no mutable array with the
 * projection, so later appends never show through.
 */
export function viewOfTask(task: MutableTaskProjection, view: TaskViewOptions = {}): Task {
  const out: Task = { id: task.id, contextId: task.contextId, status: task.status };
  if (view.includeArtifacts !== false) {
    out.artifacts = task.artifacts.map((artifact) =>
      artifactWithParts(artifact, artifact.parts.slice()),
    );
  }
  const { historyLength } = view;
  if (historyLength === undefined) {
    out.history = task.history.slice();
  } else if (historyLength > 0) {
    out.history = task.history.slice(Math.max(0, task.history.length - historyLength));
  }
  if (task.metadata !== undefined) out.metadata = task.metadata;
  return out;
}
