/**
 * One event of a stream as bindings send it: the `StreamResponse` payload, its JSON serialized at
 * most once (bindings splice it into their frames instead of re-serializing per stream, and a
 * durable store persists the same string), and the sequence number of the task's event log it
 * corresponds to (the SSE `id:`).
 */

import type { StreamResponse } from '../protocol/generated/types.js';
import { LazyJsonEvent } from '../protocol/lazy-json-event.js';

/** An event delivered on a stream. */
export interface StreamEvent {
  /**
   * The position in the task's event log, sent as the SSE `id:` so that a client can resume with
   * `Last-Event-ID`. A snapshot sent at subscription time carries the sequence number of the last
   * event it reflects. Absent for a direct `Message` answer, which has no task and no log.
   */
  readonly seq: number | undefined;
  readonly payload: StreamResponse;
  /** `JSON.stringify(payload)`, computed once, on first use. */
  readonly json: string;
}

/**
 * Builds a stream event; its JSON is serialized once, when first needed (a task nobody streams
 * and that lives in memory never pays for serialization). The same object is the store's log
 * entry when the runtime appends it.
 */
export function streamEvent<S extends number | undefined>(
  seq: S,
  payload: StreamResponse,
): StreamEvent & { readonly seq: S } {
  return new LazyJsonEvent(seq, payload);
}
