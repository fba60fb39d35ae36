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
  readonly first?: StreamEvent;
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
 * published after it was created can be missed.
 */
export class TaskEventStream implements AsyncIterableIterator<StreamEvent> {
  readonly #options: TaskEventStreamOptions;
  readonly #unsubscribe: () => void;
  #queue: StreamEvent[] = [];
  #first: StreamEvent | undefined;
  #lastSeq: number;
  #needsStore: boolean;
  /** The highest sequence number other processes told us the log has reached. */
  #pokedSeq = 0;
  #ended = false;
  #wake: (() => void) | undefined;
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
      const event = this.#queue.shift();
      if (event === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        continue;
      }
      const seq = event.seq as number;
      if (seq <= this.#lastSeq) continue;
      if (seq > this.#lastSeq + 1) {
        this.#queue.unshift(event);
        this.#needsStore = true;
        continue;
      }
      this.#lastSeq = seq;
      if (isStreamEndingEvent(event)) this.#end();
      return { done: false, value: event };
    }
  }

  /**
   * Moves events after `#lastSeq` from the store's log to the front of the queue. Returns false
   * when the log cannot fill the gap (compacted, or the task vanished).
   */
  async #readStore(): Promise<boolean> {
    const { store, taskId, bufferSize, logger } = this.#options;
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
    // Caught up when the store had less than a full page and nothing newer was announced
    // meanwhile; live events and pokes cover the rest. A read that found nothing new waits for
    // the next event or poke rather than reading again at once.
    this.#needsStore =
      entries.length >= bufferSize || (fresh.length > 0 && this.#pokedSeq > lastFresh);
    return true;
  }

  #end(): IteratorResult<StreamEvent> {
    if (!this.#ended) {
      this.#ended = true;
      this.#queue = [];
      this.#unsubscribe();
      this.#options.onClose?.();
      this.#resolveClosed();
      this.#wakeUp();
    }
    return { done: true, value: undefined };
  }

  /** Stops the stream (client gone, or server shutdown). The task is not affected. */
  return(): Promise<IteratorResult<StreamEvent>> {
    return Promise.resolve(this.#end());
  }
}
