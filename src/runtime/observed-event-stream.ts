/**
 * Watching an event stream without consuming it: {@link observeEvents} returns a stream of the same
 * events that reports each event as its consumer takes it, and how the stream ended — after its
 * last event, with the error that broke it, or because its consumer stopped it (the client went
 * away or cancelled the call). It is how a server interceptor sees a streaming operation through
 * to its end rather than only its creation, and how the call limits count open streams.
 *
 * The observed stream keeps the fast path of the runtime's streams: when the stream it wraps can
 * push its events (`event-push.ts`), so can the observed one, with one call more per event and no
 * promise; otherwise it is iterated.
 */

import type { EventPush, EventSink, PushableEventStream } from './event-push.js';
import type { EventStream } from './request-handler.js';
import type { StreamEvent } from './stream-event.js';

/** How an observed stream ended. */
export type EventStreamEnd =
  /** After its last event (the task reached a terminal or interrupted state, or the server closed it). */
  | { readonly kind: 'completed' }
  /** The error that broke it; the binding answers it as the stream's last frame or status. */
  | { readonly kind: 'failed'; readonly error: unknown }
  /** Its consumer stopped it: the client went away or cancelled the call. The task goes on. */
  | { readonly kind: 'canceled' };

/** What an observer is told; each callback is optional, and none may throw. */
export interface EventObserver {
  /** An event, as the stream's consumer takes it. */
  onEvent?(event: StreamEvent): void;
  /** Once, when the stream has ended however it ended. */
  onEnd?(end: EventStreamEnd): void;
}

const COMPLETED: EventStreamEnd = Object.freeze({ kind: 'completed' });
const CANCELED: EventStreamEnd = Object.freeze({ kind: 'canceled' });

/** Whether a value is an event stream (the result of a streaming operation). */
export function isEventStream(value: unknown): value is EventStream {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<EventStream>)[Symbol.asyncIterator] === 'function'
  );
}

/**
 * A stream of `stream`'s events that tells `observer` of each one and of the end. Consume the
 * returned stream instead of `stream` (not both). Its type is `stream`'s, so that it can be
 * returned wherever `stream` would be.
 */
export function observeEvents<S extends EventStream>(stream: S, observer: EventObserver): S {
  const observed =
    typeof (stream as Partial<PushableEventStream>).pushTo === 'function'
      ? new ObservedPushableStream(stream as unknown as PushableEventStream, observer)
      : new ObservedEventStream(stream, observer);
  return observed as unknown as S;
}

/** The end, reported once. */
class EndReport {
  readonly #observer: EventObserver;
  #reported = false;

  constructor(observer: EventObserver) {
    this.#observer = observer;
  }

  end(end: EventStreamEnd): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#observer.onEnd?.(end);
  }
}

/** An iterated stream, observed. */
class ObservedEventStream implements EventStream {
  protected readonly inner: EventStream;
  protected readonly observer: EventObserver;
  protected readonly report: EndReport;

  constructor(inner: EventStream, observer: EventObserver) {
    this.inner = inner;
    this.observer = observer;
    this.report = new EndReport(observer);
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    const iterator = this.inner[Symbol.asyncIterator]();
    const { observer, report } = this;
    return {
      async next(): Promise<IteratorResult<StreamEvent>> {
        let result: IteratorResult<StreamEvent>;
        try {
          result = await iterator.next();
        } catch (error) {
          report.end({ kind: 'failed', error });
          throw error;
        }
        if (result.done === true) report.end(COMPLETED);
        else observer.onEvent?.(result.value);
        return result;
      },
      async return(): Promise<IteratorResult<StreamEvent>> {
        report.end(CANCELED);
        return (await iterator.return?.()) ?? { done: true, value: undefined };
      },
    };
  }
}

/** A pushing stream, observed: it pushes too. */
class ObservedPushableStream extends ObservedEventStream implements PushableEventStream {
  readonly #pushable: PushableEventStream;

  constructor(inner: PushableEventStream, observer: EventObserver) {
    super(inner, observer);
    this.#pushable = inner;
  }

  pushTo(sink: EventSink): EventPush {
    const observed = new ObservedSink(sink, this.observer, this.report);
    const push = this.#pushable.pushTo(observed);
    return new ObservedPush(push, observed);
  }
}

class ObservedSink implements EventSink {
  readonly #sink: EventSink;
  readonly #observer: EventObserver;
  readonly #report: EndReport;
  /** The consumer stopped the stream: its end is a cancellation. */
  stopped = false;

  constructor(sink: EventSink, observer: EventObserver, report: EndReport) {
    this.#sink = sink;
    this.#observer = observer;
    this.#report = report;
  }

  event(event: StreamEvent): boolean {
    this.#observer.onEvent?.(event);
    return this.#sink.event(event);
  }

  end(error?: unknown): void {
    this.#report.end(
      error !== undefined ? { kind: 'failed', error } : this.stopped ? CANCELED : COMPLETED,
    );
    this.#sink.end(error);
  }
}

class ObservedPush implements EventPush {
  readonly #push: EventPush;
  readonly #sink: ObservedSink;

  constructor(push: EventPush, sink: ObservedSink) {
    this.#push = push;
    this.#sink = sink;
  }

  resume(): void {
    this.#push.resume();
  }

  stop(): void {
    this.#sink.stopped = true;
    this.#push.stop();
  }
}
