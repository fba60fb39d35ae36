/**
 * A runtime event stream as the JSON-RPC binding sends it (spec 9.4.2): one SSE frame per event,
 * `id: <seq>` plus `data: <JSON-RPC response>` whose `result` is the event's precomputed JSON,
 * spliced in without re-serializing. The transport gives it a sink and writes what it pushes; it
 * never sees events.
 *
 * Contract for the transport: nothing throws. An error thrown by the runtime in the middle of a
 * stream becomes one last frame carrying a JSON-RPC error with the request's id, and the stream
 * ends. `stop()` (the client went away) releases the runtime subscription at once and never
 * cancels the task.
 */

import { InternalError, isA2AError, type A2AError } from '../../protocol/errors.js';
import { encodeSseEvent } from '../../protocol/sse-encoder.js';
import { pushEvents, type EventPush } from '../../runtime/event-push.js';
import type { Logger } from '../../runtime/logger.js';
import type { EventStream } from '../../runtime/request-handler.js';
import type { StreamEvent } from '../../runtime/stream-event.js';
import { errorEnvelope } from './jsonrpc-envelope.js';

/** Where the frames go; structurally the HTTP layer's `SseSink`. */
export interface FrameSink {
  /** Writes one frame; `false` pauses the stream until `resume()`. */
  write(frame: string): boolean;
  /** Called once when no frame will follow. */
  end(): void;
}

/** A source of encoded SSE frames that pushes them as the runtime produces events. */
export class JsonRpcEventStream {
  readonly #events: EventStream;
  readonly #idToken: string;
  readonly #dataPrefix: string;
  readonly #logger: Logger;
  #finished = false;
  #push: EventPush | undefined;
  #sink: FrameSink | undefined;
  #errorCode: number | undefined;
  #firstPayload: StreamEvent['payload'] | undefined;

  /**
   * @param events the runtime stream; `idToken` is the request id as a JSON token.
   */
  constructor(events: EventStream, idToken: string, logger: Logger) {
    this.#events = events;
    this.#idToken = idToken;
    // JSON.stringify never emits a raw CR or LF, so the data is always a single `data:` line.
    this.#dataPrefix = 'data: {"jsonrpc":"2.0","id":' + idToken + ',"result":';
    this.#logger = logger;
  }

  /** The JSON-RPC error code sent in the final frame, if the stream failed. */
  get errorCode(): number | undefined {
    return this.#errorCode;
  }

  /** The first event sent, for logging which task the stream was about. */
  get firstPayload(): StreamEvent['payload'] | undefined {
    return this.#firstPayload;
  }

  /** Whether the stream has ended (normally, by error, or stopped). */
  get finished(): boolean {
    return this.#finished;
  }

  /** Starts pushing frames to `sink`; called once. */
  start(sink: FrameSink): void {
    if (this.#sink !== undefined) throw new TypeError('JsonRpcEventStream.start called twice');
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
    this.#finished = true;
    if (this.#push !== undefined) {
      this.#push.stop();
      return;
    }
    // Not started yet (a notification's stream): release the runtime's subscription; `start`
    // will end its sink at once.
    const returned = this.#events[Symbol.asyncIterator]().return?.();
    returned?.then(undefined, (error: unknown) => {
      this.#logger.warn({ err: error }, 'releasing an event stream failed');
    });
  }

  readonly #onEvent = (event: StreamEvent): boolean => {
    const sink = this.#sink;
    if (this.#finished || sink === undefined) return false;
    this.#firstPayload ??= event.payload;
    const head = event.seq === undefined ? '' : 'id: ' + String(event.seq) + '\n';
    return sink.write(head + this.#dataPrefix + event.json + '}\n\n');
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
    this.#finished = true;
    if (error !== undefined) {
      let wire: A2AError;
      if (isA2AError(error)) {
        wire = error;
      } else {
        this.#logger.error({ err: error }, 'event stream failed with an unexpected error');
        wire = new InternalError();
      }
      this.#errorCode = wire.code;
      sink?.write(encodeSseEvent({ data: errorEnvelope(this.#idToken, wire) }));
    }
    sink?.end();
  };
}
