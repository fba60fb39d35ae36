/**
 * Tasks, statuses, artifacts and stream events between 0.3 and 1.0 (rules in docs/compat-0.3.md):
 * - task states `input-required` ↔ `TASK_STATE_INPUT_REQUIRED` and so on; 0.3 `unknown` has no
 *   1.0 state a task may hold, so a task reported `unknown` is untranslatable;
 * - `kind` discriminators (`task`, `message`, `status-update`, `artifact-update`) ↔ the member of
 *   the 1.0 `StreamResponse`;
 * - `final` on 0.3 status updates is written `true` when the state ends the stream in 1.0
 *   (terminal or interrupted: input or auth required); read, it ends the stream there;
 * - timestamps with an offset (`+00:00`, as Python 0.3 SDKs write them) become UTC with `Z`.
 */

import type {
  Artifact,
  StreamResponse,
  Task,
  TaskState,
  TaskStatus,
} from '../../../protocol/generated/types.js';
import { isFinalOrInterruptedState } from '../../../protocol/task-state.js';
import { isObject, UntranslatableError, type Issues } from './untranslatable.js';
import {
  defined,
  join,
  readArray,
  readBoolean,
  readObject,
  readString,
  readStrings,
  readStruct,
  typeName,
} from './v03-fields.js';
import { messageFromV03, messageToV03, partFromV03, partToV03 } from './v03-message.js';
import type {
  V03Artifact,
  V03StreamEvent,
  V03Task,
  V03TaskState,
  V03TaskStatus,
} from './v03-types.js';

const STATES: ReadonlyArray<readonly [V03TaskState, TaskState]> = [
  ['submitted', 'TASK_STATE_SUBMITTED'],
  ['working', 'TASK_STATE_WORKING'],
  ['input-required', 'TASK_STATE_INPUT_REQUIRED'],
  ['completed', 'TASK_STATE_COMPLETED'],
  ['canceled', 'TASK_STATE_CANCELED'],
  ['failed', 'TASK_STATE_FAILED'],
  ['rejected', 'TASK_STATE_REJECTED'],
  ['auth-required', 'TASK_STATE_AUTH_REQUIRED'],
  ['unknown', 'TASK_STATE_UNSPECIFIED'],
];

export function stateToV03(state: TaskState): V03TaskState {
  return (STATES.find(([, v1]) => v1 === state) as readonly [V03TaskState, TaskState])[0];
}

function stateFromV03(value: unknown, path: string, issues: Issues): TaskState | undefined {
  if (value === 'unknown') {
    issues.add(path, 'the 0.3 state "unknown" has no A2A 1.0 equivalent a task may be in');
    return undefined;
  }
  const found = STATES.find(([v03]) => v03 === value);
  if (found === undefined) {
    issues.add(path, `must be a 0.3 task state such as "working", got ${typeName(value)}`);
    return undefined;
  }
  return found[1];
}

/** Whether a 1.0 stream ends after a status in this state (0.3 `final: true`). */
export function isFinalState(state: TaskState): boolean {
  return isFinalOrInterruptedState(state);
}

/** A 0.3 timestamp as 1.0 accepts it: kept as sent when UTC with `Z`, else normalized. */
function timestampFromV03(value: string, path: string, issues: Issues): string | undefined {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/.test(value)) return value;
  const millis = Date.parse(value);
  if (Number.isNaN(millis)) {
    issues.add(path, `must be an ISO-8601 timestamp, got ${JSON.stringify(value).slice(0, 60)}`);
    return undefined;
  }
  return new Date(millis).toISOString();
}

function statusToV03(status: TaskStatus): V03TaskStatus {
  return defined({
    state: stateToV03(status.state),
    message: status.message === undefined ? undefined : messageToV03(status.message),
    timestamp: status.timestamp,
  });
}

function statusFromV03(value: unknown, path: string, issues: Issues): TaskStatus | undefined {
  if (!isObject(value)) {
    issues.add(path, value === undefined ? 'is required' : 'must be a status object');
    return undefined;
  }
  const state = stateFromV03(value.state, join(path, 'state'), issues);
  const timestamp = readString(value, 'timestamp', path, issues);
  const message =
    value.message === undefined || value.message === null
      ? undefined
      : messageFromV03(value.message, join(path, 'message'), issues);
  if (state === undefined) return undefined;
  return defined({
    state,
    message,
    timestamp:
      timestamp === undefined
        ? undefined
        : timestampFromV03(timestamp, join(path, 'timestamp'), issues),
  });
}

export function artifactToV03(artifact: Artifact): V03Artifact {
  return defined({ ...artifact, parts: artifact.parts.map(partToV03) });
}

function artifactFromV03(value: unknown, path: string, issues: Issues): Artifact | undefined {
  if (!isObject(value)) {
    issues.add(path, 'must be an artifact object');
    return undefined;
  }
  const artifactId = readString(value, 'artifactId', path, issues, true);
  const parts = readArray(
    value,
    'parts',
    path,
    issues,
    (p, at) => partFromV03(p, at, issues),
    true,
  );
  if (artifactId === undefined || parts === undefined) return undefined;
  return defined({
    artifactId,
    name: readString(value, 'name', path, issues),
    description: readString(value, 'description', path, issues),
    parts,
    metadata: readStruct(value, 'metadata', path, issues),
    extensions: readStrings(value, 'extensions', path, issues),
  });
}

/** A 1.0 task as 0.3 writes it. @throws UntranslatableError without a context id (0.3 needs one). */
export function taskToV03(task: Task): V03Task {
  if (task.contextId === undefined) {
    throw new UntranslatableError(`Task ${task.id} has no contextId, which 0.3 requires`, [
      { field: 'contextId', description: 'is required in A2A 0.3' },
    ]);
  }
  return defined({
    kind: 'task' as const,
    id: task.id,
    contextId: task.contextId,
    status: statusToV03(task.status),
    artifacts: task.artifacts?.map(artifactToV03),
    history: task.history?.map(messageToV03),
    metadata: task.metadata,
  });
}

export function taskFromV03(value: unknown, path: string, issues: Issues): Task | undefined {
  if (!isObject(value)) {
    issues.add(path, `must be a task object, got ${typeName(value)}`);
    return undefined;
  }
  const id = readString(value, 'id', path, issues, true);
  const contextId = readString(value, 'contextId', path, issues, true);
  const status = statusFromV03(value.status, join(path, 'status'), issues);
  const artifacts = readArray(value, 'artifacts', path, issues, (a, at) =>
    artifactFromV03(a, at, issues),
  );
  const history = readArray(value, 'history', path, issues, (m, at) =>
    messageFromV03(m, at, issues),
  );
  if (id === undefined || status === undefined) return undefined;
  return defined({
    id,
    contextId,
    status,
    artifacts,
    history,
    metadata: readStruct(value, 'metadata', path, issues),
  });
}

/** A 1.0 stream event as 0.3 writes it. */
export function streamEventToV03(event: StreamResponse): V03StreamEvent {
  if (event.task !== undefined) return taskToV03(event.task);
  if (event.message !== undefined) return messageToV03(event.message);
  if (event.statusUpdate !== undefined) {
    const update = event.statusUpdate;
    return defined({
      kind: 'status-update' as const,
      taskId: update.taskId,
      contextId: update.contextId,
      status: statusToV03(update.status),
      final: isFinalState(update.status.state),
      metadata: update.metadata,
    });
  }
  const update = event.artifactUpdate;
  return defined({
    kind: 'artifact-update' as const,
    taskId: update.taskId,
    contextId: update.contextId,
    artifact: artifactToV03(update.artifact),
    append: update.append,
    lastChunk: update.lastChunk,
    metadata: update.metadata,
  });
}

/** A 0.3 stream event as 1.0, with whether 0.3 marked it `final`. */
export interface TranslatedEvent {
  readonly event: StreamResponse;
  readonly final: boolean;
}

export function streamEventFromV03(
  value: unknown,
  path: string,
  issues: Issues,
): TranslatedEvent | undefined {
  if (!isObject(value)) {
    issues.add(path, `must be an event object, got ${typeName(value)}`);
    return undefined;
  }
  switch (value.kind) {
    case 'task': {
      const task = taskFromV03(value, path, issues);
      return task === undefined ? undefined : { event: { task }, final: false };
    }
    case 'message': {
      const message = messageFromV03(value, path, issues);
      return message === undefined ? undefined : { event: { message }, final: true };
    }
    case 'status-update': {
      const taskId = readString(value, 'taskId', path, issues, true);
      const contextId = readString(value, 'contextId', path, issues, true);
      const status = statusFromV03(value.status, join(path, 'status'), issues);
      const final = readBoolean(value, 'final', path, issues) ?? false;
      const metadata = readStruct(value, 'metadata', path, issues);
      if (taskId === undefined || contextId === undefined || status === undefined) return undefined;
      return {
        event: { statusUpdate: defined({ taskId, contextId, status, metadata }) },
        final: final || isFinalState(status.state),
      };
    }
    case 'artifact-update': {
      const taskId = readString(value, 'taskId', path, issues, true);
      const contextId = readString(value, 'contextId', path, issues, true);
      const artifact = artifactFromV03(
        readObject(value, 'artifact', path, issues, true),
        join(path, 'artifact'),
        issues,
      );
      if (taskId === undefined || contextId === undefined || artifact === undefined) {
        return undefined;
      }
      const update = defined({
        taskId,
        contextId,
        artifact,
        append: readBoolean(value, 'append', path, issues),
        lastChunk: readBoolean(value, 'lastChunk', path, issues),
        metadata: readStruct(value, 'metadata', path, issues),
      });
      return { event: { artifactUpdate: update }, final: false };
    }
    default:
      issues.add(
        join(path, 'kind'),
        `must be "task", "message", "status-update" or "artifact-update", got ${typeName(value.kind)}`,
      );
      return undefined;
  }
}
