/**
 * How the agent's answers become a turn of the conversation: each event (or the one answer of a
 * call that does not stream) folds into the turn — its task and context, each state it moved
 * through, artifacts assembled chunk by chunk (`append`), and the agent's messages.
 */

import type { Artifact, Message, StreamResponse, Task, TaskState } from '../../src/index.js';
import type { Turn } from './store.js';

function withState(turn: Turn, state: TaskState, time: string): Turn {
  const last = turn.states.at(-1);
  if (last?.state === state) return turn;
  return { ...turn, states: [...turn.states, { state, time }] };
}

function withMessage(turn: Turn, message: Message | undefined): Turn {
  if (message === undefined) return turn;
  if (turn.replies.some((reply) => reply.messageId === message.messageId)) return turn;
  return { ...turn, replies: [...turn.replies, message] };
}

function withArtifact(turn: Turn, artifact: Artifact, append: boolean): Turn {
  const index = turn.artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  if (index < 0) return { ...turn, artifacts: [...turn.artifacts, artifact] };
  const artifacts = [...turn.artifacts];
  const existing = artifacts[index] as Artifact;
  artifacts[index] = append
    ? { ...existing, ...artifact, parts: [...existing.parts, ...artifact.parts] }
    : artifact;
  return { ...turn, artifacts };
}

function withTask(turn: Turn, task: Task, time: string): Turn {
  let next: Turn = { ...turn, taskId: task.id, contextId: task.contextId };
  next = withState(next, task.status.state, time);
  next = withMessage(next, task.status.message);
  for (const artifact of task.artifacts ?? []) next = withArtifact(next, artifact, false);
  return next;
}

/** Folds one event into the turn. */
export function applyEvent(turn: Turn, payload: StreamResponse, time: string): Turn {
  const counted = { ...turn, events: turn.events + 1 };
  if (payload.task !== undefined) return withTask(counted, payload.task, time);
  if (payload.message !== undefined) {
    return withMessage(
      {
        ...counted,
        ...(payload.message.contextId === undefined
          ? {}
          : { contextId: payload.message.contextId }),
      },
      payload.message,
    );
  }
  if (payload.statusUpdate !== undefined) {
    const update = payload.statusUpdate;
    const next = withState(
      { ...counted, taskId: update.taskId, contextId: update.contextId },
      update.status.state,
      time,
    );
    return withMessage(next, update.status.message);
  }
  const update = payload.artifactUpdate;
  return withArtifact(
    { ...counted, taskId: update.taskId, contextId: update.contextId },
    update.artifact,
    update.append === true,
  );
}

/** The kind of an event, as the timeline names it. */
export function kindOf(payload: StreamResponse): string {
  if (payload.task !== undefined) return 'task';
  if (payload.message !== undefined) return 'message';
  if (payload.statusUpdate !== undefined) return 'statusUpdate';
  return 'artifactUpdate';
}

/** The task an event is about. */
export function taskIdOf(payload: StreamResponse): string | null {
  return (
    payload.task?.id ??
    payload.statusUpdate?.taskId ??
    payload.artifactUpdate?.taskId ??
    payload.message?.taskId ??
    null
  );
}

/** Whether a state asks the user for something: the next message continues the task. */
export function isInterrupted(state: TaskState | undefined): boolean {
  return state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED';
}

/** Whether a state is final. */
export function isTerminal(state: TaskState | undefined): boolean {
  return (
    state === 'TASK_STATE_COMPLETED' ||
    state === 'TASK_STATE_FAILED' ||
    state === 'TASK_STATE_CANCELED' ||
    state === 'TASK_STATE_REJECTED'
  );
}

/** A state as people read it: `TASK_STATE_INPUT_REQUIRED` → `input required`. */
export function stateLabel(state: string): string {
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, ' ');
}
