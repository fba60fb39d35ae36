/**
 * The numbering rule of a task's event log, checked the same way by every store: sequence
 * numbers start at 1 and each event follows the previous one by exactly 1.
 */

import type { StreamResponse } from '../protocol/generated/types.js';
import { asError } from '../protocol/local-errors.js';
import type { TaskLogEntry } from './task-store.js';

/** The seq of the last of `events` written after `expectedSeq`; throws on a gap or a repeat. */
export function lastSeqOf(expectedSeq: number, events: readonly TaskLogEntry[]): number {
  let seq = expectedSeq;
  for (const event of events) {
    if (event.seq !== seq + 1) throw new Error(`Event seq ${event.seq} does not follow ${seq}`);
    seq = event.seq;
  }
  return seq;
}

/** Why `events` cannot be a new task's first events (seq 1, 2, ...), or `undefined`. */
export function createEventsProblem(events: readonly TaskLogEntry[]): Error | undefined {
  if (events.length === 0) return new Error('A task is created with at least one event');
  try {
    lastSeqOf(0, events);
    return undefined;
  } catch (error) {
    return asError(error);
  }
}

/**
 * An event whose JSON is made on first read, then kept. The runtime builds its events this way (a
 * task nobody streams and that lives in memory never pays for serialization), and the memory store
 * rebuilds the entries it hands back from the payloads it keeps (the JSON of an event a stream
 * already sent would otherwise stay in memory for the life of the task). `seq` is `undefined` only
 * for a runtime event outside any log (a direct `Message` answer). The payload must not be changed
 * after construction.
 */
export class PayloadLogEntry<S extends number | undefined = number> {
  readonly seq: S;
  readonly payload: StreamResponse;
  #json: string | undefined;

  constructor(seq: S, payload: StreamResponse) {
    this.seq = seq;
    this.payload = payload;
  }

  get json(): string {
    this.#json ??= JSON.stringify(this.payload);
    return this.#json;
  }
}
