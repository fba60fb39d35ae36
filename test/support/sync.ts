/**
 * Waiting without sleeping: milestones a test awaits, counters of arrivals, and bounds that turn
 * a hang into a failure. The only time-based helpers wait for a condition that offers no event
 * to await (a state visible only through another process's API, the wall clock moving on), or
 * let time pass where time itself is under test.
 */

/** A promise with its resolvers exposed. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
  readonly settled: boolean;
}

/** Creates a {@link Deferred}. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  let settled = false;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A milestone nobody awaits must not surface as an unhandled rejection.
  promise.catch(() => undefined);
  return {
    promise,
    resolve(value) {
      settled = true;
      resolve(value);
    },
    reject(error) {
      settled = true;
      reject(error);
    },
    get settled() {
      return settled;
    },
  };
}

/** Counts arrivals; `reached(n)` resolves once `n` have arrived. */
export class Counter {
  #count = 0;
  readonly #waiters: { n: number; resolve: () => void }[] = [];

  get count(): number {
    return this.#count;
  }

  increment(): void {
    this.#count++;
    for (const waiter of [...this.#waiters]) {
      if (waiter.n > this.#count) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  reached(n: number): Promise<void> {
    if (this.#count >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }
}

/** Rejects naming `what` if `promise` does not settle within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `check` every `intervalMs` until it returns something other than `undefined`. Only for
 * state that offers no event to await, e.g. a task inside a child process.
 */
export async function pollUntil<T>(
  check: () => Promise<T | undefined>,
  what: string,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 10 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms: ${what}`);
    await sleep(intervalMs);
  }
}

/**
 * Resolves once the wall clock has passed `afterMs`, so that the next status timestamp the
 * server writes is strictly later (timestamps have millisecond resolution).
 */
export async function clockPast(afterMs: number): Promise<void> {
  while (Date.now() <= afterMs) await sleep(1);
}

/**
 * Lets `ms` milliseconds pass. Only where time itself is under test (an agent that works for a
 * while, a timeout that must not fire) — never to let something else happen.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Milliseconds on a clock shared by every process of this machine, with sub-ms resolution. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/** The `p`-th percentile (0–100) of `values`, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? NaN;
}
