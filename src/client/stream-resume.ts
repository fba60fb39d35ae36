/**
 * Streams that survive a dropped connection. A stream of a task is resumed with
 * `SubscribeToTask` and `Last-Event-ID` (the SSE `id:` of the last event received) when its
 * connection fails, or ends before the task reached a terminal or interrupted state; events whose
 * id was already delivered are dropped, so the caller sees each event once, in order.
 *
 * Resuming needs an event id and a task id: a stream of a server that sends no `id:` cannot be
 * resumed and its drop surfaces as a `ConnectionError`. A drop after a terminal or interrupted
 * state is a normal end: the spec lets the stream close there (11.7), and what could be lost is at
 * most a redundant final snapshot. Attempts are bounded, each after an exponential, jittered delay,
 * and the count starts again whenever an event arrives.
 */

import type { StreamResponse } from '../protocol/generated/types.js';
import { isFinalOrInterruptedState } from '../protocol/task-state.js';
import { sleep } from './call-scope.js';
import { ConnectionError, HttpStatusError } from './client-errors.js';
import type { StreamItem } from '../bindings/client/client-transport.js';
import { backoffDelay, type RetryPolicy } from './retry-policy.js';

/** One connection of a stream: its events, and how to close it. */
export interface StreamConnection {
  readonly items: AsyncIterable<StreamItem>;
  close(): void;
}

/** How to open the connections of one resumable stream. */
export interface ResumableStreamSource {
  /** Opens the first connection. */
  open(): Promise<StreamConnection>;
  /** Opens a connection that resumes `taskId` after the event `lastEventId`. */
  resume(taskId: string, lastEventId: string): Promise<StreamConnection>;
  /** The task of the stream when known in advance (`SubscribeToTask`). */
  readonly taskId?: string | undefined;
  /** Resume after this event from the start (`SubscribeToTask` with `lastEventId`). */
  readonly lastEventId?: string | undefined;
  /** Resume attempts after one drop; 0 disables resuming. */
  readonly maxAttempts: number;
  /** Delays between attempts. */
  readonly backoff: RetryPolicy;
  readonly signal: AbortSignal | undefined;
}

/** The task an event is about, if any. */
export function taskIdOf(payload: StreamResponse): string | undefined {
  return payload.task?.id ?? payload.statusUpdate?.taskId ?? payload.artifactUpdate?.taskId;
}

/** Whether a stream may end after this event: a message, or a terminal or interrupted state. */
export function endsStream(payload: StreamResponse): boolean {
  if (payload.message !== undefined) return true;
  const state = payload.task?.status.state ?? payload.statusUpdate?.status.state;
  return state !== undefined && isFinalOrInterruptedState(state);
}

/** Failures after which reconnecting can help. */
function isTransient(error: unknown): boolean {
  if (error instanceof HttpStatusError) return [502, 503, 504].includes(error.status);
  return error instanceof ConnectionError;
}

/** The events of a stream, resumed across dropped connections as the module describes. */
export async function* resumableStream(
  source: ResumableStreamSource,
): AsyncGenerator<StreamResponse, void, undefined> {
  const delivered = new Set<string>();
  let lastId = source.lastEventId;
  let taskId = source.taskId;
  let mayEnd = false;
  let opened = false;
  /** Failed attempts since the last event arrived. */
  let failures = 0;
  for (;;) {
    let failure: unknown;
    let connection: StreamConnection | undefined;
    try {
      connection =
        !opened || lastId === undefined || taskId === undefined
          ? await source.open()
          : await source.resume(taskId, lastId);
      opened = true;
      for await (const item of connection.items) {
        if (item.id !== undefined) {
          if (delivered.has(item.id)) continue;
          delivered.add(item.id);
          lastId = item.id;
        }
        taskId ??= taskIdOf(item.payload);
        mayEnd = endsStream(item.payload);
        failures = 0;
        yield item.payload;
      }
      if (mayEnd) return;
      failure = new ConnectionError(
        `The event stream of task ${taskId ?? '(unknown)'} ended before the task reached a ` +
          'terminal or interrupted state',
      );
    } catch (error) {
      if (mayEnd && error instanceof ConnectionError) return;
      failure = error;
    } finally {
      connection?.close();
    }
    const resumable = lastId !== undefined && taskId !== undefined && isTransient(failure);
    if (!resumable || failures >= source.maxAttempts || source.signal?.aborted === true) {
      throw failure;
    }
    failures++;
    await sleep(backoffDelay(source.backoff, failures), source.signal);
  }
}
