/**
 * Push delivery of an {@link EventStream}: the stream calls a sink for each event as it comes,
 * instead of the consumer awaiting `next()` for each one.
 *
 * Why: an open stream mostly waits. Pulled, every wait holds a chain of pending promises (the
 * transport's read, the binding's, the runtime's wake-up); with a thousand slow streams those
 * objects outlive a young-generation collection or two and are promoted, so the old generation
 * fills with garbage between full collections. Pushed, a waiting stream holds nothing but itself,
 * and an event costs one call per layer. Back-pressure stays: a sink answers `false` when it can
 * take no more for now, and the stream holds (a bounded number of) events until `resume()`.
 */

import type { Logger } from './logger.js';
import type { EventStream } from './request-handler.js';
import type { StreamEvent } from './stream-event.js';

/** Receives the events of a stream, in log order. */
export interface EventSink {
  /**
   * The next event. Returns `false` when the consumer cannot take more for now: nothing more is
   * delivered until {@link EventPush.resume}.
   */
  event(event: StreamEvent): boolean;
  /**
   * Called exactly once, when the stream has ended however it ended: after its last event, when
   * it was stopped (by the consumer or the server shutting down), or with the error that broke it.
   */
  end(error?: unknown): void;
}

/** The consumer's handle on a pushing stream. */
export interface EventPush {
  /** Delivers again after the sink answered `false`. */
  resume(): void;
  /** Stops the stream (the client went away); the sink's `end` is still called once. */
  stop(): void;
}

/** An event stream that can push its events itself (the runtime's streams can). */
export interface PushableEventStream extends EventStream {
  /** Starts delivering to `sink`; at most once, and never after iteration began. */
  pushTo(sink: EventSink): EventPush;
}

function isPushable(stream: EventStream): stream is PushableEventStream {
  return typeof (stream as Partial<PushableEventStream>).pushTo === 'function';
}

/**
 * Delivers `stream` to `sink`: natively when the stream can push, otherwise by iterating it (any
 * `AsyncIterable` a custom request handler returns), honouring the sink's back-pressure either way.
 */
export function pushEvents(stream: EventStream, sink: EventSink, logger: Logger): EventPush {
  return isPushable(stream)
    ? stream.pushTo(sink)
    : new IteratedEventPush(stream[Symbol.asyncIterator](), sink, logger);
}

/** Push over pull, for streams that only iterate. */
class IteratedEventPush implements EventPush {
  readonly #iterator: AsyncIterator<StreamEvent>;
  readonly #sink: EventSink;
  readonly #logger: Logger;
  #paused = false;
  #ended = false;

  constructor(iterator: AsyncIterator<StreamEvent>, sink: EventSink, logger: Logger) {
    this.#iterator = iterator;
    this.#sink = sink;
    this.#logger = logger;
    void this.#run();
  }

  async #run(): Promise<void> {
    try {
      while (!this.#paused && !this.#ended) {
        const result = await this.#iterator.next();
        if (this.#ended) return;
        if (result.done === true) {
          this.#end(undefined);
          return;
        }
        if (!this.#sink.event(result.value)) this.#paused = true;
      }
    } catch (error) {
      if (this.#ended)
        this.#logger.warn({ err: error }, 'event stream failed after it was stopped');
      else this.#end(error);
    }
  }

  #end(error: unknown): void {
    this.#ended = true;
    this.#sink.end(error);
  }

  resume(): void {
    if (!this.#paused || this.#ended) return;
    this.#paused = false;
    void this.#run();
  }

  stop(): void {
    if (this.#ended) return;
    this.#end(undefined);
    const returned = this.#iterator.return?.();
    returned?.then(undefined, (error: unknown) => {
      this.#logger.warn({ err: error }, 'releasing an event stream failed');
    });
  }
}
