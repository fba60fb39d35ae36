/**
 * A whole `text/event-stream` body read into its events with the protocol's own SSE decoder, for
 * tests of the SSE framing itself (the drivers read streams event by event instead).
 */

import { SseDecoder, type SseEvent } from '../../src/codecs.js';

/** Reads `response`'s body to its end and returns its events. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  if (response.body === null) return events;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    events.push(...decoder.push(chunk));
  }
  events.push(...decoder.end());
  return events;
}
