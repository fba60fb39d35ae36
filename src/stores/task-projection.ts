/**
 * The task projection as plain objects: applying {@link TaskMutation}s and cutting the view a
 * caller asked for. Stores that keep tasks as objects share these so that every store answers
 * `GetTask` identically; SQL stores apply the same rules in their own statements.
 */

import type { Artifact, Message, Task, TaskStatus } from '../protocol/generated/types.js';
import type { Struct } from '../protocol/json.js';
import type { TaskMutation, TaskViewOptions } from './task-store.js';
import { timestampMillis } from '../protocol/timestamps.js';
import { artifactWithParts } from '../protocol/copies.js';

/** A task projection being maintained by a store. Arrays are owned by the store. */
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
      if (incoming.name !== undefined) existing.name = incoming.name;
      if (incoming.description !== undefined) existing.description = incoming.description;
      if (incoming.metadata !== undefined) existing.metadata = incoming.metadata;
      if (incoming.extensions !== undefined) existing.extensions = incoming.extensions;
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

/** Epoch milliseconds of a task's status timestamp. */
export function statusTimeOf(status: TaskStatus): number {
  const time = status.timestamp === undefined ? NaN : timestampMillis(status.timestamp);
  if (Number.isNaN(time)) {
    throw new TypeError('A stored task status must carry a valid timestamp');
  }
  return time;
}
