/**
 * Event ids as every binding writes and reads them: the sequence number of an event in its
 * task's event log, in decimal. SSE sends it in `id:` and takes it back in `Last-Event-ID`; gRPC
 * numbers a stream from a first id in its response headers.
 */

/** Longest accepted id: 15 digits stay exact as a JavaScript number. */
const EVENT_ID = /^\d{1,15}$/;

/** Whether `text` is an event id: 1 to 15 decimal digits, nothing around them. */
export function isEventId(text: string): boolean {
  return EVENT_ID.test(text);
}
