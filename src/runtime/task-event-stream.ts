/**
 * A reader of one task's event log for one client: an optional snapshot first, then every event
 * after a sequence number — from the store when it is behind, then live from the hub — with no
 * gap and no duplicate, ending after the event that moves the task to a terminal or interrupted
 * state.
 *
 * Memory per reader is bounded: live events wait in a queue of at most `bufferSize`; a reader that
 * falls further behind (a slow client) drops its queue and catches up from the store's log
 * instead. Only if the log no longer holds the events it missed is the reader ended, with the
 * reason logged.
 */

import { isFinalOrInterruptedState } from '../protocol/task-state.js';
import type { TaskStore } from '../stores/task-store.js';
import type { EventPush, EventSink, PushableEventStream } from './event-push.js';
import type { Logger } from './logger.js';
import type { StreamEvent } from './stream-event.js';
import type { TaskEventHub } from './task-event-hub.js';

/** Options of {@link TaskEventStream}. */
export interface TaskEventStreamOptions {
  readonly store: TaskStore;
  readonly hub: TaskEventHub;
  readonly logger: Logger;
  readonly taskId: string;
  /** Deliver events with a greater sequence number. */
  readonly afterSeq: number;
  /** Sent before anything else (the `Task` snapshot of a subscription); never ends the stream. */
  readonly first?: StreamEvent | undefined;
  /** Read the store before waiting for live events (the log may be ahead of `afterSeq`). */
  readonly catchUp: boolean;
  /** Largest number of live events held in memory. */
  readonly bufferSize: number;
  /** Called once when the stream ends, however it ends. */
  readonly onClose?: () => void;
}

/** Whether an event ends a stream: a status update to a terminal or interrupted state. */
export function isStreamEndingEvent(event: StreamEvent): boolean {
  const update = event.payload.statusUpdate;
  return update !== undefined && isFinalOrInterruptedState(update.status.state);
}

/**
 * The reader. It subscribes to the hub on construction — before any `await` — so that nothing
 * published after it was created can be missed. It is consumed either by iteration or by push
 * ({@link TaskEventStream.pushTo}), not both.
 */
export class TaskEventStream implements AsyncIterableIterator<StreamEvent>, PushableEventStream {
  readonly #options: TaskEventStreamOptions;
  readonly #unsubscribe: () => void;
  #queue: StreamEvent[] = [];
  #first: StreamEvent | undefined;
  #lastSeq: number;
  #needsStore: boolean;
  /** The highest sequence number other processes told us the log has reached. */
  #pokedSeq = 0;
  #ended = false;
  /** Iteration: resolves the pending `next()` that waits for an event or a poke. */
  #wake: (() => void) | undefined;
  /** Push: where events go, whether the sink asked for a pause, and re-entrancy guards. */
  #sink: EventSink | undefined;
  #paused = false;
  #pumping = false;
  #reading = false;
  #resolveClosed!: () => void;
  /** Settles when the stream has ended, however it ended. */
  readonly closed: Promise<void> = new Promise((resolve) => {
    this.#resolveClosed = resolve;
  });

  constructor(options: TaskEventStreamOptions) {
    this.#options = options;
    this.#first = options.first;
    this.#lastSeq = options.afterSeq;
    this.#needsStore = options.catchUp;
    this.#unsubscribe = options.hub.subscribe(options.taskId, {
      onEvent: (event) => this.#onEvent(event),
      onPoke: (seq) => this.#onPoke(seq),
    });
  }

  #onPoke(seq: number | undefined): void {
    if (this.#ended || (seq !== undefined && seq <= this.#lastSeq)) return;
    if (seq !== undefined && seq > this.#pokedSeq) this.#pokedSeq = seq;
    this.#needsStore = true;
    this.#wakeUp();
  }

  #wakeUp(): void {
    if (this.#sink !== undefined) {
      this.#pump();
      return;
    }
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #onEvent(event: StreamEvent): void {
    if (this.#ended || event.seq === undefined || event.seq <= this.#lastSeq) return;
    if (this.#queue.length >= this.#options.bufferSize) {
      this.#queue = [];
      this.#needsStore = true;
    } else {
      this.#queue.push(event);
    }
    this.#wakeUp();
  }

  /**
   * The next queued event if it is the one after `#lastSeq` (which it then becomes); undefined
   * when the queue is empty or has a gap, which sets `#needsStore`.
   */
  #takeNext(): StreamEvent | undefined {
    for (;;) {
      const event = this.#queue.shift();
      if (event === undefined) return undefined;
      const seq = event.seq as number;
      if (seq <= this.#lastSeq) continue;
      if (seq > this.#lastSeq + 1) {
        this.#queue.unshift(event);
        this.#needsStore = true;
        return undefined;
      }
      this.#lastSeq = seq;
      return event;
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<StreamEvent>> {
    if (this.#ended) return { done: true, value: undefined };
    const first = this.#first;
    if (first !== undefined) {
      this.#first = undefined;
      return { done: false, value: first };
    }
    for (;;) {
      if (this.#needsStore && !(await this.#readStore())) return this.#end();
      if (this.#ended) return { done: true, value: undefined };
      const event = this.#takeNext();
      if (event === undefined) {
        if (this.#needsStore) continue;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        continue;
      }
      if (isStreamEndingEvent(event)) this.#end();
      return { done: false, value: event };
    }
  }

  /** Delivers every event to `sink` from now on, as it comes; see `event-push.ts`. */
  pushTo(sink: EventSink): EventPush {
    this.#sink = sink;
    if (this.#ended) sink.end();
    else this.#pump();
    return this;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#pump();
  }

  stop(): void {
    this.#end();
  }

  /** Hands the sink every event it can take now; returns when it must wait. */
  #pump(): void {
    const sink = this.#sink;
    if (sink === undefined || this.#pumping) return;
    this.#pumping = true;
    try {
      while (!this.#paused && !this.#ended) {
        // The snapshot sent first never ends the stream.
        let event = this.#first;
        let ending = false;
        if (event !== undefined) {
          this.#first = undefined;
        } else {
          // What the queue holds in order goes first: a store read refills it from `#lastSeq`.
          event = this.#takeNext();
          if (event === undefined) {
            if (this.#needsStore) this.#readStoreThenPump();
            return;
          }
          ending = isStreamEndingEvent(event);
        }
        if (!sink.event(event)) this.#paused = true;
        if (ending) this.#end();
      }
    } catch (error) {
      this.#options.logger.error(
        { err: error, taskId: this.#options.taskId },
        'a stream consumer failed; ending the stream',
      );
      this.#end(error);
    } finally {
      this.#pumping = false;
    }
  }

  #readStoreThenPump(): void {
    if (this.#reading) return;
    this.#reading = true;
    this.#readStore().then(
      (ok) => {
        this.#reading = false;
        if (ok) this.#pump();
        else this.#end();
      },
      (error: unknown) => {
        this.#reading = false;
        this.#end(error);
      },
    );
  }

  /**
   * Moves events after `#lastSeq` from the store's log to the front of the queue. Returns false
   * when the log cannot fill the gap (compacted, or the task vanished).
   */
  async #readStore(): Promise<boolean> {
    const { store, taskId, bufferSize, logger } = this.#options;
    const pokedBefore = this.#pokedSeq;
    const entries = await store.readEvents(taskId, this.#lastSeq, bufferSize);
    if (this.#ended) return true;
    if (entries === undefined) {
      logger.warn({ taskId }, 'task disappeared while a stream was reading it; ending the stream');
      return false;
    }
    const fresh = entries.filter((entry) => entry.seq > this.#lastSeq);
    const queued = this.#queue.filter((event) => (event.seq as number) > this.#lastSeq);
    const firstQueued = queued[0]?.seq;
    if (fresh.length === 0 && firstQueued !== undefined && firstQueued > this.#lastSeq + 1) {
      logger.warn(
        { taskId, afterSeq: this.#lastSeq },
        'stream fell behind the retained event log; ending the stream',
      );
      return false;
    }
    const lastFresh = fresh[fresh.length - 1]?.seq ?? this.#lastSeq;
    this.#queue = [...fresh, ...queued.filter((event) => (event.seq as number) > lastFresh)];
    // Caught up when the store had less than a full page and no poke announced more than is
    // now held; live events and pokes cover the rest. An announcement past what is held means
    // reading again when this read found something (more may have come) or when the poke came
    // while it was in flight (it may have begun before that write committed). A read that found
    // nothing new after every poke so far waits for the next event or poke instead.
    const held = this.#queue[this.#queue.length - 1]?.seq ?? lastFresh;
    this.#needsStore =
      entries.length >= bufferSize ||
      (this.#pokedSeq > held && (fresh.length > 0 || this.#pokedSeq > pokedBefore));
    return true;
  }

  /** Ends the stream once: releases the subscription and tells whoever consumes it. */
  #end(error?: unknown): IteratorResult<StreamEvent> {
    if (!this.#ended) {
      this.#ended = true;
      this.#queue = [];
      this.#unsubscribe();
      this.#options.onClose?.();
      this.#resolveClosed();
      const sink = this.#sink;
      if (sink === undefined) this.#wakeUp();
      else this.#endSink(sink, error);
    }
    return { done: true, value: undefined };
  }

  #endSink(sink: EventSink, error: unknown): void {
    try {
      sink.end(error);
    } catch (failure) {
      this.#options.logger.error(
        { err: failure, taskId: this.#options.taskId },
        'a stream consumer failed while the stream ended',
      );
    }
  }

  /** Stops the stream (client gone, or server shutdown). The task is not affected. */
  return(): Promise<IteratorResult<StreamEvent>> {
    return Promise.resolve(this.#end());
  }
}
