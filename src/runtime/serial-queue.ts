/**
 * Asynchronous jobs run strictly one after another, in the order they were given: the writes of
 * one task. An idle queue starts a job at once, in the caller's turn, so that a lone write costs
 * no extra hop; a busy one starts it when the jobs before it have settled, whether they succeeded
 * or failed (a failure reaches that job's caller, and the queue goes on).
 */

const ignore = (): void => {};

/** A queue of asynchronous jobs run one at a time. */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /** Jobs given and not settled yet, the running one included. */
  get pending(): number {
    return this.#pending;
  }

  /** Runs `job` after every job given before it; settles as `job`'s promise does. */
  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#pending === 0 ? job() : this.#tail.then(job);
    this.#pending++;
    this.#tail = result.then(this.#settled, this.#settled);
    return result;
  }

  /** Resolves when every job given so far has settled. */
  idle(): Promise<void> {
    return this.#pending === 0 ? Promise.resolve() : this.#tail.then(ignore);
  }

  readonly #settled = (): void => {
    this.#pending--;
  };
}
