/**
 * The rules every store checks a write against, the same way: a task's event log is numbered from
 * 1, each event following the previous one by exactly 1, and every stored status carries a valid
 * timestamp (listing orders by it). A write that breaks them is refused whole with an
 * `InvalidTaskWriteError`.
 */

import type { TaskStatus } from '../protocol/generated/types.js';
import { InvalidTaskWriteError } from '../protocol/local-errors.js';
import { timestampMillis } from '../protocol/timestamps.js';
import type { TaskLogEntry } from './task-store.js';

/** The seq of the last of `events` written after `expectedSeq`; throws on a gap or a repeat. */
export function lastSeqOf(expectedSeq: number, events: readonly TaskLogEntry[]): number {
  let seq = expectedSeq;
  for (const event of events) {
    if (event.seq !== seq + 1) {
      throw new InvalidTaskWriteError(`Event seq ${event.seq} does not follow ${seq}`);
    }
    seq = event.seq;
  }
  return seq;
}

/** Why `events` cannot be a new task's first events (seq 1, 2, ...), or `undefined`. */
export function createEventsProblem(
  events: readonly TaskLogEntry[],
): InvalidTaskWriteError | undefined {
  if (events.length === 0) {
    return new InvalidTaskWriteError('A task is created with at least one event');
  }
  let seq = 0;
  for (const event of events) {
    if (event.seq !== seq + 1) {
      return new InvalidTaskWriteError(`Event seq ${event.seq} does not follow ${seq}`);
    }
    seq = event.seq;
  }
  return undefined;
}

/** The status time (epoch ms), or the error saying why a status cannot be stored. */
export function statusTimeOrError(status: TaskStatus): number | InvalidTaskWriteError {
  const time = status.timestamp === undefined ? NaN : timestampMillis(status.timestamp);
  return Number.isNaN(time)
    ? new InvalidTaskWriteError(
        `A stored task status must carry a valid timestamp (status ${status.state} has ${status.timestamp === undefined ? 'none' : JSON.stringify(status.timestamp)})`,
      )
    : time;
}

/** Epoch milliseconds of a task's status timestamp; throws `InvalidTaskWriteError` without one. */
export function statusTimeOf(status: TaskStatus): number {
  const time = statusTimeOrError(status);
  if (typeof time !== 'number') throw time;
  return time;
}
