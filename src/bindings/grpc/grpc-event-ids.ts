/**
 * Event ids on gRPC streams, both halves. gRPC has no per-message header where the SSE `id:`
 * would go (spec 10.7 defines none), yet a client needs the position of the last event it saw to
 * resume a stream with `SubscribeToTask` and `last-event-id` metadata. The events of one stream
 * are consecutive entries of the task's event log, so the server sends the id of the first event
 * once, as a response header, and the n-th message of the stream (from 0) has id first + n.
 */

import { isEventId } from '../../protocol/event-id.js';

/** The response header that carries the id of a stream's first event. */
export const FIRST_EVENT_ID_HEADER = 'a2a-first-event-id';

/** The id of a stream's first event, or `undefined` when the stream is not numbered. */
export function firstEventIdOf(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !isEventId(value)) return undefined;
  return Number(value);
}
