/**
 * A runtime event stream as an SSE response, shared by the HTTP bindings (JSON-RPC spec 9.4.2,
 * HTTP+JSON spec 11.7): one frame per event with `id: <seq>` so that a client can resume with
 * `Last-Event-ID`, back-pressure from the connection, and one last error frame when the stream
 * breaks. Each binding frames the event's precomputed JSON its own way (inside a JSON-RPC response
 * envelope, or bare), through a {@link SseFraming}; nothing is re-serialized per stream.
 *
 * Contract for the transport: nothing throws. An error thrown by the runtime in the middle of a
 * stream becomes one last frame carrying the binding's error form, and the stream ends. `stop()`
 * (the client went away) releases the runtime subscription at once and never cancels the task.
 */

import type { A2AError } from '../../protocol/errors.js';
import type { SseSink, SseSource } from './http-exchange.js';
import type { StreamResponse } from '../../protocol/generated/types.js';
import { pushEvents, type EventPush } from '../../runtime/event-push.js';
import type { Logger } from '../../runtime/logger.js';
import type { EventStream } from '../../runtime/request-handler.js';
import type { StreamEvent } from '../../runtime/stream-event.js';
import { wireErrorOf } from './server-call.js';

/** How a binding writes events and errors into SSE frames. */
export interface SseFraming {
  /** The binding name, for the log line of an unexpected error. */
  readonly binding: string;
  /** The `data:` line of an event, from its JSON (one line: JSON never holds a raw CR or LF). */
  eventData(json: string): string;
  /** The whole frame (`data: ...\n\n`) of the error that ends a stream. */
  errorFrame(error: A2AError): string;
  /** The code the request log records for that error (JSON-RPC code, HTTP status...). */
  errorCodeOf(error: A2AError): number | string;
}

/** A source of encoded SSE frames that pushes them as the runtime produces events. */
export class SseEventStream implements SseSource {
  readonly #events: EventStream;
  readonly #framing: SseFraming;
  readonly #logger: Logger;
  readonly #operation: string;
  #finished = false;
  #push: EventPush | undefined;
  #sink: SseSink | undefined;
  #error: A2AError | undefined;
  #firstPayload: StreamResponse | undefined;
  #onFinish: (() => void) | undefined;

  constructor(events: EventStream, framing: SseFraming, logger: Logger, operation: string) {
    this.#events = events;
    this.#framing = framing;
    this.#logger = logger;
    this.#operation = operation;
  }

  /** The error sent in the final frame, if the stream failed. */
  get error(): A2AError | undefined {
    return this.#error;
  }

  /** The binding's code of that error, for the request log. */
  get errorCode(): number | string | undefined {
    return this.#error === undefined ? undefined : this.#framing.errorCodeOf(this.#error);
  }

  /** The first event sent, for logging which task the stream was about. */
  get firstPayload(): StreamResponse | undefined {
    return this.#firstPayload;
  }

  /** Whether the stream has ended (normally, by error, or stopped). */
  get finished(): boolean {
    return this.#finished;
  }

  /** Calls `listener` once when the stream has ended however it ended (for the request log). */
  onFinish(listener: () => void): void {
    if (this.#finished) listener();
    else this.#onFinish = listener;
  }

  /** Starts pushing frames to `sink`; called once. */
  start(sink: SseSink): void {
    if (this.#sink !== undefined) throw new TypeError('SseEventStream.start called twice');
    this.#sink = sink;
    if (this.#finished) {
      sink.end();
      return;
    }
    this.#push = pushEvents(this.#events, { event: this.#onEvent, end: this.#onEnd }, this.#logger);
  }

  /** Writes again after the sink answered `false`. */
  resume(): void {
    this.#push?.resume();
  }

  /**
   * Stops the stream because nobody reads it any more: releases the runtime subscription (which
   * may have been iterated or pushed, or neither yet). The task goes on.
   */
  stop(): void {
    if (this.#finished) return;
    this.#finish();
    if (this.#push !== undefined) {
      this.#push.stop();
      return;
    }
    // Not started yet (nobody will read it): release the runtime's subscription; `start` will
    // end its sink at once.
    const returned = this.#events[Symbol.asyncIterator]().return?.();
    returned?.then(undefined, (error: unknown) => {
      this.#logger.warn({ err: error }, 'releasing an event stream failed');
    });
  }

  #finish(): void {
    this.#finished = true;
    const listener = this.#onFinish;
    this.#onFinish = undefined;
    listener?.();
  }

  readonly #onEvent = (event: StreamEvent): boolean => {
    const sink = this.#sink;
    if (this.#finished || sink === undefined) return false;
    this.#firstPayload ??= event.payload;
    const head = event.seq === undefined ? '' : 'id: ' + String(event.seq) + '\n';
    return sink.write(head + this.#framing.eventData(event.json) + '\n\n');
  };

  readonly #onEnd = (error?: unknown): void => {
    const sink = this.#sink;
    if (this.#finished) {
      if (error !== undefined) {
        this.#logger.warn({ err: error }, 'event stream failed after the client went away');
      }
      sink?.end();
      return;
    }
    if (error !== undefined) {
      const wire = wireErrorOf(error, this.#logger, {
        binding: this.#framing.binding,
        operation: this.#operation,
      });
      this.#error = wire;
      sink?.write(this.#framing.errorFrame(wire));
    }
    this.#finish();
    sink?.end();
  };
}
