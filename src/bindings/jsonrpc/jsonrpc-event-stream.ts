/**
 * A runtime event stream as the JSON-RPC binding sends it (spec 9.4.2): one SSE frame per event,
 * `id: <seq>` plus `data: <JSON-RPC response>` whose `result` is the event's precomputed JSON,
 * spliced in without re-serializing. The transport pulls frames and writes them; it never sees
 * events.
 *
 * Contract for the transport: `next()` never rejects. An error thrown by the runtime in the
 * middle of a stream becomes one last frame carrying a JSON-RPC error with the request's id, and
 * the stream ends. `stop()` (the client went away) releases the runtime subscription at once,
 * even while a `next()` is pending, and never cancels the task.
 */

import { InternalError, isA2AError, type A2AError } from '../../protocol/errors.js';
import { encodeSseEvent } from '../../protocol/sse-encoder.js';
import type { Logger } from '../../runtime/logger.js';
import type { EventStream } from '../../runtime/request-handler.js';
import type { StreamEvent } from '../../runtime/stream-event.js';
import { errorEnvelope } from './jsonrpc-envelope.js';

const DONE: IteratorResult<string> = Object.freeze({ done: true, value: undefined });
const DONE_PROMISE = Promise.resolve(DONE);

/** A pull-based source of encoded SSE frames. */
export class JsonRpcEventStream implements AsyncIterator<string> {
  readonly #events: AsyncIterator<StreamEvent>;
  readonly #idToken: string;
  readonly #dataPrefix: string;
  readonly #logger: Logger;
  #finished = false;
  #pending: ((result: IteratorResult<string>) => void) | undefined;
  #errorCode: number | undefined;
  #firstPayload: StreamEvent['payload'] | undefined;

  /**
   * @param events the runtime stream; `idToken` is the request id as a JSON token.
   */
  constructor(events: EventStream, idToken: string, logger: Logger) {
    this.#events = events[Symbol.asyncIterator]();
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

  next(): Promise<IteratorResult<string>> {
    if (this.#finished) return DONE_PROMISE;
    return new Promise<IteratorResult<string>>((resolve) => {
      this.#pending = resolve;
      try {
        this.#events.next().then(this.#onEvent, this.#onError);
      } catch (error) {
        this.#onError(error);
      }
    });
  }

  /**
   * Stops the stream because nobody reads it any more: resolves a pending `next()` as done and
   * returns the runtime iterator, which releases its subscription. The task goes on.
   */
  stop(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#settle(DONE);
    const returned = this.#events.return?.();
    if (returned !== undefined) returned.then(undefined, this.#onReturnError);
  }

  /** Same as {@link stop}, for `for await` loops that break early. */
  return(): Promise<IteratorResult<string>> {
    this.stop();
    return DONE_PROMISE;
  }

  readonly #onEvent = (result: IteratorResult<StreamEvent>): void => {
    if (this.#finished) return;
    if (result.done === true) {
      this.#finished = true;
      this.#settle(DONE);
      return;
    }
    const event = result.value;
    this.#firstPayload ??= event.payload;
    const head = event.seq === undefined ? '' : 'id: ' + String(event.seq) + '\n';
    this.#settle({ done: false, value: head + this.#dataPrefix + event.json + '}\n\n' });
  };

  readonly #onError = (error: unknown): void => {
    if (this.#finished) {
      this.#logger.warn({ err: error }, 'event stream failed after the client went away');
      return;
    }
    this.#finished = true;
    let wire: A2AError;
    if (isA2AError(error)) {
      wire = error;
    } else {
      this.#logger.error({ err: error }, 'event stream failed with an unexpected error');
      wire = new InternalError();
    }
    this.#errorCode = wire.code;
    this.#settle({
      done: false,
      value: encodeSseEvent({ data: errorEnvelope(this.#idToken, wire) }),
    });
  };

  readonly #onReturnError = (error: unknown): void => {
    this.#logger.warn({ err: error }, 'releasing an event stream failed');
  };

  #settle(result: IteratorResult<string>): void {
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.(result);
  }
}
