/**
 * Task changes as the runtime writes them: each is one `StreamResponse` event for the log and
 * readers, plus the projection mutations it implies. Keeping both derived from one function is
 * what guarantees that `GetTask` always agrees with what streams delivered.
 *
 * History policy: the user's messages and the agent's status messages are kept in the task's
 * history, in order (spec 3.7 leaves the choice to the agent).
 */

import type {
  Artifact,
  Message,
  StreamResponse,
  TaskState,
  TaskStatus,
} from '../protocol/generated/types.js';
import type { TaskMutation } from '../protocol/task-projection.js';
import { currentTimestamp } from '../protocol/timestamps.js';

/** A change ready to be appended: its event payload and its projection mutations. */
export interface TaskChange {
  readonly payload: StreamResponse;
  readonly mutations: readonly TaskMutation[];
  /** The task state after the change. */
  readonly state: TaskState;
}

/** A status update, with the status message (if any) added to the history. */
export function statusChange(
  taskId: string,
  contextId: string,
  state: TaskState,
  message: Message | undefined,
): TaskChange {
  const status: TaskStatus = { state, timestamp: currentTimestamp() };
  if (message !== undefined) status.message = message;
  const mutations: TaskMutation[] = [{ kind: 'status', status }];
  if (message !== undefined) mutations.push({ kind: 'history', message });
  return { payload: { statusUpdate: { taskId, contextId, status } }, mutations, state };
}

/**
 * The change that resumes an interrupted task with the client's next message: the message joins
 * the history and the task goes back to `WORKING`.
 */
export function resumeChange(taskId: string, contextId: string, userMessage: Message): TaskChange {
  const working = statusChange(taskId, contextId, 'TASK_STATE_WORKING', undefined);
  return {
    ...working,
    mutations: [{ kind: 'history', message: userMessage }, ...working.mutations],
  };
}

/** An artifact update (whole artifact, or one chunk of it). */
export function artifactChange(
  taskId: string,
  contextId: string,
  currentState: TaskState,
  artifact: Artifact,
  append: boolean,
  lastChunk: boolean,
): TaskChange {
  const update: NonNullable<StreamResponse['artifactUpdate']> = { taskId, contextId, artifact };
  if (append) update.append = true;
  if (lastChunk) update.lastChunk = true;
  return {
    payload: { artifactUpdate: update },
    mutations: [{ kind: 'artifact', artifact, append }],
    state: currentState,
  };
}

/** The state a change moves the task to, when it is a status update. */
export function targetStateOf(change: TaskChange): TaskState | undefined {
  return change.payload.statusUpdate?.status.state;
}
