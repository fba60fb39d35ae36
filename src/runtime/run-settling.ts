/**
 * When one run is over for its callers: the abort signal its execution watches, and the promise a
 * blocking `SendMessage` waits on. A run settles once its task is terminal or interrupted, or once
 * it stopped writing (canceled, or ended elsewhere) and no cancel it queued is still to be stored:
 * a canceled task settles when its `CANCELED` status is stored, not before.
 */

import type { TaskState } from '../protocol/generated/types.js';
import { isFinalOrInterruptedState } from '../protocol/task-state.js';

/** The signal and the settled promise of one run, both made on demand. */
export class RunSettling {
  /** Cancels queued and not stored yet. */
  #cancelsPending = 0;
  // Created on demand: most executions never look at their signal.
  #controller: AbortController | undefined;
  #aborted = false;
  #settled: { promise: Promise<void>; resolve: () => void } | undefined;

  /** Fires once {@link abort} is called. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** Fires the abort signal (once). */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
  }

  /** A cancel was queued: the run does not settle from being stopped until it is stored. */
  cancelQueued(): void {
    this.#cancelsPending++;
  }

  /** A queued cancel was stored, or found the task already ended. */
  cancelDone(): void {
    this.#cancelsPending--;
  }

  /** Resolves once {@link check} finds the run settled. */
  untilSettled(state: TaskState, stopped: boolean): Promise<void> {
    if (this.#settled === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#settled = { promise, resolve };
      this.check(state, stopped);
    }
    return this.#settled.promise;
  }

  /** Settles the run if it is over, given its stored state and whether it stopped writing. */
  check(state: TaskState, stopped: boolean): void {
    if (this.#settled === undefined) return;
    if (isFinalOrInterruptedState(state) || (stopped && this.#cancelsPending === 0)) {
      this.#settled.resolve();
    }
  }
}
