/**
 * The outcome of a stream, folded from its events the way spec 3.1.2 defines them: a `Message`
 * is the whole answer; otherwise the stream starts with a `Task` snapshot, status updates
 * replace its status, and artifact updates add, replace or (with `append`) extend its artifacts
 * by `artifactId`. A later `Task` snapshot replaces everything.
 */

import type {
  Artifact,
  Message,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
} from '../protocol/generated/types.js';
import { ProtocolViolationError } from './client-errors.js';

function withArtifact(task: Task, update: TaskArtifactUpdateEvent): Task {
  const artifacts: Artifact[] = [...(task.artifacts ?? [])];
  const index = artifacts.findIndex((a) => a.artifactId === update.artifact.artifactId);
  const existing = index === -1 ? undefined : artifacts[index];
  const next: Artifact =
    update.append === true && existing !== undefined
      ? { ...existing, parts: [...existing.parts, ...update.artifact.parts] }
      : update.artifact;
  if (index === -1) artifacts.push(next);
  else artifacts[index] = next;
  return { ...task, artifacts };
}

/** Folds events into the task (or message) they describe. */
export class StreamOutcome {
  #task: Task | undefined;
  #message: Message | undefined;

  /** Applies one event. */
  apply(event: StreamResponse): void {
    if (event.message !== undefined) {
      this.#message = event.message;
    } else if (event.task !== undefined) {
      this.#task = event.task;
    } else if (event.statusUpdate !== undefined) {
      const task = this.#require(event.statusUpdate.taskId);
      this.#task = { ...task, status: event.statusUpdate.status };
    } else if (event.artifactUpdate !== undefined) {
      this.#task = withArtifact(this.#require(event.artifactUpdate.taskId), event.artifactUpdate);
    }
  }

  /** The answer so far: the message, or the task as the events so far left it. */
  get current(): Task | Message | undefined {
    return this.#message ?? this.#task;
  }

  /**
   * The answer: the agent's message, or the task as the events left it.
   *
   * @throws ProtocolViolationError when the stream carried neither.
   */
  result(): Task | Message {
    const result = this.current;
    if (result === undefined) {
      throw new ProtocolViolationError('The stream ended without a Task or a Message');
    }
    return result;
  }

  #require(taskId: string): Task {
    if (this.#task !== undefined) return this.#task;
    throw new ProtocolViolationError(
      `An update of task ${taskId} arrived before the Task itself; a stream must start with the ` +
        'Task or a Message (spec 3.1.2)',
    );
  }
}
