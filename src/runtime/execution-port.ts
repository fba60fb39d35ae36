/**
 * What the agent's side of an execution calls: the narrow port through which an
 * `ExecutionContext` and its artifact streams reach the execution that made them. The execution
 * (`task-execution.ts`) implements it; the agent's side depends on this port alone, never on the
 * execution, its run or the store, so that the dependency points one way.
 */

import type { Artifact, Message, Task, TaskState } from '../protocol/generated/types.js';
import type { Struct } from '../protocol/json.js';
import type { Caller } from './agent.js';
import type { MessageContent } from './agent-content.js';

/** What the agent may read of the message its execution answers. */
export interface ExecutionInput {
  /** The incoming message, already given its `taskId` and `contextId`. */
  readonly message: Message;
  /** The continued task as it is after the resume; `undefined` for a new task. */
  readonly task: Task | undefined;
  readonly caller: Caller;
  readonly extensions: readonly string[];
  readonly acceptedOutputModes: readonly string[] | undefined;
  readonly metadata: Struct | undefined;
}

/** The verbs of one execution, as its context calls them. */
export interface ExecutionPort {
  readonly init: ExecutionInput;
  readonly taskId: string;
  readonly contextId: string;
  /** Fires when the task is canceled or the server shuts down. */
  readonly signal: AbortSignal;
  /** Earlier tasks of the same context, most recently updated first. */
  contextTasks(limit: number): Promise<Task[]>;
  /** A direct message instead of a task (spec 3.1.1); once, before any task change. */
  reply(content: MessageContent, metadata: Struct | undefined): Promise<void>;
  /** A status change the agent asked for. */
  changeStatus(state: TaskState, message: MessageContent | undefined): Promise<unknown>;
  /** An artifact (or a chunk of one) the agent emits. */
  emitArtifact(artifact: Artifact, append: boolean, lastChunk: boolean): Promise<unknown>;
}
