/**
 * The cancellation of one HTTP exchange: the caller's `AbortSignal`, the time limit and the
 * client's own reasons to stop (a stream whose consumer left), combined into the one signal that
 * the request carries. A timeout aborts with a {@link CallTimeoutError} as the reason, so that
 * `fetch` and body reads reject with it directly; a caller's abort keeps the caller's reason.
 */

import { CallTimeoutError } from './client-errors.js';

export class CallScope {
  /** The signal to give the request. */
  readonly signal: AbortSignal;
  readonly #caller: AbortSignal | undefined;
  readonly #local = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** @param timeoutMs the time limit; 0 or `Infinity` for none. */
  constructor(caller: AbortSignal | undefined, timeoutMs: number) {
    this.#caller = caller;
    this.signal =
      caller === undefined ? this.#local.signal : AbortSignal.any([caller, this.#local.signal]);
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.#timer = setTimeout(() => this.#local.abort(new CallTimeoutError(timeoutMs)), timeoutMs);
    }
  }

  /** Whether the caller aborted (as opposed to a timeout or the client closing the exchange). */
  get callerAborted(): boolean {
    return this.#caller?.aborted === true;
  }

  /** Stops the time limit, e.g. once a stream has started. */
  clearTimeout(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Ends the exchange: aborts the request (closing its connection) and stops the timer. */
  close(): void {
    this.clearTimeout();
    if (!this.#local.signal.aborted) {
      this.#local.abort(new DOMException('The client closed the exchange', 'AbortError'));
    }
  }
}

/** Throws the caller's abort reason when `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw signal.reason as unknown;
}

/** Waits `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
