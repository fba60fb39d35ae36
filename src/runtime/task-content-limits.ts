/**
 * Limits on what one task may hold (spec 13.4: limits on resource use), so that neither a client
 * nor a runaway agent can grow a task without bound in the store: the messages kept in its history
 * and the bytes of artifact parts written to it.
 *
 * - A client message that would take the history past `historyLength` is refused before anything
 *   is written (`UnsupportedOperationError` naming the limit; the task stays as it was, and the
 *   client can start a new task in the same context).
 * - An agent change that would pass either limit is refused before it is stored: the agent's call
 *   rejects with {@link TaskContentLimitError}, and if the agent lets it propagate the task ends
 *   FAILED with a status message naming the limit. The final status message itself is always
 *   kept, so that the task can end.
 *
 * Artifact bytes count every part as it is written: text as UTF-8, file bytes decoded, file URLs
 * and data parts as their JSON text; an artifact replaced whole counts again.
 */

import type { Artifact, Part, Task } from '../protocol/generated/types.js';
import { LocalError } from '../protocol/local-errors.js';
import { isTerminalState } from '../protocol/task-state.js';
import type { TaskChange } from './task-changes.js';
import { targetStateOf } from './task-changes.js';
import { integerOption } from '../protocol/integer-option.js';

/** What one task may hold. */
export interface TaskContentLimits {
  /** Bytes of artifact parts written to one task. Default 64 MiB. */
  readonly artifactBytesPerTask?: number | undefined;
  /** Messages kept in one task's history (the client's and the agent's). Default 1,000. */
  readonly historyLength?: number | undefined;
}

/** Every content limit, set. */
export type TaskContentLimitValues = { readonly [K in keyof TaskContentLimits]-?: number };

/** The defaults: far beyond a conversation, far below what hurts a store. */
export const DEFAULT_TASK_CONTENT_LIMITS: TaskContentLimitValues = Object.freeze({
  artifactBytesPerTask: 64 * 1024 * 1024,
  historyLength: 1_000,
});

/** An agent's change refused because the task would pass one of its limits. */
export class TaskContentLimitError extends LocalError {
  constructor(
    message: string,
    readonly limit: keyof TaskContentLimits,
  ) {
    super(message);
  }
}

const encoder = new TextEncoder();

function base64Bytes(text: string): number {
  const body = text.replace(/=+$/, '');
  return Math.floor((body.length * 3) / 4);
}

/** The bytes a part counts for. */
export function partBytes(part: Part): number {
  if (part.text !== undefined) return encoder.encode(part.text).length;
  if (part.raw !== undefined) return base64Bytes(part.raw);
  if (part.url !== undefined) return encoder.encode(part.url).length;
  if (part.data !== undefined) return encoder.encode(JSON.stringify(part.data)).length;
  return 0;
}

function artifactBytes(artifacts: readonly Artifact[] | undefined): number {
  let total = 0;
  for (const artifact of artifacts ?? [])
    for (const part of artifact.parts) total += partBytes(part);
  return total;
}

/** What a task holds, as its limits count it; checks each change of its run against them. */
export class TaskBudget {
  readonly #limits: TaskContentLimitValues;
  #history: number;
  #artifactBytes: number;

  private constructor(limits: TaskContentLimitValues, history: number, bytes: number) {
    this.#limits = limits;
    this.#history = history;
    this.#artifactBytes = bytes;
  }

  /** The budget of a task about to be created with the client's first message. */
  static forNewTask(limits: TaskContentLimitValues): TaskBudget {
    return new TaskBudget(limits, 1, 0);
  }

  /** The budget of a stored task (its whole history and artifacts). */
  static forTask(limits: TaskContentLimitValues, task: Task): TaskBudget {
    return new TaskBudget(limits, task.history?.length ?? 0, artifactBytes(task.artifacts));
  }

  /**
   * Counts `change` in, or throws — counting nothing — when it would pass a limit. A final status
   * change always passes the history limit, so that a task over its budget can still end.
   *
   * @throws TaskContentLimitError naming the limit.
   */
  admit(change: TaskChange, taskId: string): void {
    let messages = 0;
    let bytes = 0;
    for (const mutation of change.mutations) {
      if (mutation.kind === 'history') messages++;
      else if (mutation.kind === 'artifact') bytes += artifactBytes([mutation.artifact]);
    }
    const target = targetStateOf(change);
    const ending = target !== undefined && isTerminalState(target);
    const { historyLength, artifactBytesPerTask } = this.#limits;
    if (!ending && messages > 0 && this.#history + messages > historyLength) {
      throw new TaskContentLimitError(
        `Task ${taskId} already keeps ${this.#history} messages in its history, the most it may (limit historyLength ${historyLength})`,
        'historyLength',
      );
    }
    if (bytes > 0 && this.#artifactBytes + bytes > artifactBytesPerTask) {
      throw new TaskContentLimitError(
        `Task ${taskId} would hold ${this.#artifactBytes + bytes} bytes of artifacts, more than the ${artifactBytesPerTask} it may (limit artifactBytesPerTask)`,
        'artifactBytesPerTask',
      );
    }
    this.#history += messages;
    this.#artifactBytes += bytes;
  }
}

/**
 * The limits `options` asks for, with the defaults for those it leaves out.
 *
 * @throws ConfigurationError for a limit that is not a positive integer.
 */
export function taskContentLimitsOf(options: TaskContentLimits): TaskContentLimitValues {
  const limits = { ...DEFAULT_TASK_CONTENT_LIMITS };
  for (const name of ['artifactBytesPerTask', 'historyLength'] as const) {
    const value = options[name];
    if (value === undefined) continue;
    limits[name] = integerOption(`limits.${name}`, value, 1);
  }
  return limits;
}
