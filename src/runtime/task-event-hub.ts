/**
 * In-process fan-out of task events. The runtime publishes every event it has stored; streams,
 * blocking `SendMessage` waiters and running tasks listen by task id. Delivery is synchronous and
 * in publish order, so every listener sees the same events in the same order (spec 3.5.2); a
 * listener that throws is removed and logged, never affecting the others.
 *
 * Events appended by other processes sharing the store arrive as a "poke": the task id and the
 * sequence number the log has reached. Listeners then read what they miss from the store.
 */

import type { Logger } from './logger.js';
import type { StreamEvent } from './stream-event.js';

/** Receives the events of one task. */
export interface TaskEventListener {
  /** An event appended by this process, with its payload. */
  onEvent(event: StreamEvent): void;
  /**
   * The task's log reached `seq` through another process — or, with `undefined`, may have
   * changed unseen: read the store for the events.
   */
  onPoke?(seq: number | undefined): void;
}

/** Per-process publish/subscribe of task events by task id. */
export class TaskEventHub {
  readonly #listeners = new Map<string, Set<TaskEventListener>>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Starts delivering the task's events to `listener`; returns the function that stops it. */
  subscribe(taskId: string, listener: TaskEventListener): () => void {
    let set = this.#listeners.get(taskId);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(taskId, set);
    }
    set.add(listener);
    return () => {
      const current = this.#listeners.get(taskId);
      if (current === undefined) return;
      current.delete(listener);
      if (current.size === 0) this.#listeners.delete(taskId);
    };
  }

  /** Delivers a stored event to every current listener of the task. */
  publish(taskId: string, event: StreamEvent): void {
    this.#deliver(taskId, (listener) => listener.onEvent(event));
  }

  /** Tells the task's listeners that its log reached `seq` elsewhere. */
  poke(taskId: string, seq: number): void {
    this.#deliver(taskId, (listener) => listener.onPoke?.(seq));
  }

  /** Tells every listener of every task to re-read the store (announcements were lost). */
  pokeAll(): void {
    for (const taskId of [...this.#listeners.keys()])
      this.#deliver(taskId, (l) => l.onPoke?.(undefined));
  }

  #deliver(taskId: string, call: (listener: TaskEventListener) => void): void {
    const set = this.#listeners.get(taskId);
    if (set === undefined) return;
    for (const listener of set) {
      try {
        call(listener);
      } catch (error) {
        set.delete(listener);
        this.#logger.error({ err: error, taskId }, 'task event listener failed and was removed');
      }
    }
  }

  /** Number of listeners of a task, for diagnostics and tests. */
  listenerCount(taskId: string): number {
    return this.#listeners.get(taskId)?.size ?? 0;
  }
}
