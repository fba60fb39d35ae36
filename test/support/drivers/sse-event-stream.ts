/**
 * An {@link EventStream} over a `text/event-stream` response, read with the protocol's own SSE
 * decoder. Each binding says how one SSE event becomes a stream event (or the error that ends
 * the stream); events are decoded as the test takes them, so that the events before an error
 * are still delivered first.
 */

import { SseDecoder, type SseEvent } from '../../../src/codecs.js';
import { preciseNow } from '../sync.js';
import { BindingViolationError, type EventStream, type StreamEvent } from './a2a-driver.js';
import { eventStreamOf } from './event-stream-of.js';
import { activatedExtensionsOf } from './wire-driver.js';

/** How a binding reads one SSE event; throws the typed error an error event carries. */
export type SseEventReader = (event: SseEvent, receivedAt: number) => StreamEvent;

/** The sequence number an SSE `id:` names; `undefined` when the event had none. */
export function seqOf(event: SseEvent): number | undefined {
  if (event.id === undefined) return undefined;
  if (!/^\d{1,15}$/.test(event.id)) {
    throw new BindingViolationError(
      `SSE id ${JSON.stringify(event.id)} is not an event sequence number`,
    );
  }
  return Number(event.id);
}

export function sseEventStream(
  response: Response,
  controller: AbortController,
  read: SseEventReader,
): EventStream {
  if (response.body === null) throw new BindingViolationError('The event stream has no body');
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new SseDecoder();
  const queue: { event: SseEvent; receivedAt: number }[] = [];
  let ended = false;
  const next = async (): Promise<StreamEvent | undefined> => {
    while (queue.length === 0 && !ended) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (controller.signal.aborted) return undefined;
        throw error;
      }
      const receivedAt = preciseNow();
      const events = chunk.done ? decoder.end() : decoder.push(chunk.value);
      if (chunk.done) ended = true;
      for (const event of events) queue.push({ event, receivedAt });
    }
    const first = queue.shift();
    return first === undefined ? undefined : read(first.event, first.receivedAt);
  };
  return eventStreamOf({
    activatedExtensions: activatedExtensionsOf(response),
    next,
    close: () => controller.abort(),
  });
}
