/**
 * What a binding reports about each call it answered, for the request log: the operation, the task
 * it concerned and how it ended. Bindings fill it from their own wire format, so that the log (and
 * anything else reading calls, such as metrics) needs no binding's types. Never carries message
 * contents or credentials.
 */

import type { OperationName } from '../../protocol/operations.js';

/** One call, as the request log sees it. */
export interface CallReport {
  /** The binding that answered: `JSONRPC`, `HTTP+JSON`, `GRPC`. */
  readonly binding: string;
  /** The operation, when the request named a known one. */
  readonly operation: OperationName | undefined;
  /** The task the call concerned, from the request or its answer. */
  readonly taskId: string | undefined;
  /** The binding's code of the error answered (JSON-RPC code, HTTP status...), if any. */
  readonly errorCode: number | string | undefined;
  /** The A2A error reason (`TASK_NOT_FOUND`...) of that error, when it is an A2A error. */
  readonly errorReason: string | undefined;
}

/**
 * The task a call concerned: from the request (`id`, `taskId`, `message.taskId`) or from what was
 * answered (a `Task`, a `SendMessageResponse.task`, a stream event). Never reads message contents.
 */
export function taskIdOf(request: unknown, result: unknown): string | undefined {
  return (
    stringField(request, 'taskId') ??
    messageTaskId(request) ??
    taskIdOfValue(result) ??
    (isRecord(request) && typeof request.id === 'string' ? request.id : undefined)
  );
}

function taskIdOfValue(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const task = value.task;
  if (isRecord(task) && typeof task.id === 'string') return task.id;
  for (const key of ['statusUpdate', 'artifactUpdate'] as const) {
    const taskId = stringField(value[key], 'taskId');
    if (taskId !== undefined) return taskId;
  }
  return messageTaskId(value) ?? (isRecord(value.status) ? stringField(value, 'id') : undefined);
}

function messageTaskId(value: unknown): string | undefined {
  return isRecord(value) ? stringField(value.message, 'taskId') : undefined;
}

function stringField(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'string' && field !== '' ? field : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
