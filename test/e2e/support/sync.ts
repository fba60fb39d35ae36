/**
 * Synchronisation between a test and the agents it defines: the test opens gates the agent
 * awaits, and awaits milestones the agent reaches. Nothing here sleeps to let something happen;
 * the only time-based helpers wait for a condition that has no event (the wall clock moving on,
 * or a state visible only through another process's API).
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

/**
 * Polls `check` until it returns a value other than `undefined`. Only for state that offers no
 * event to await, e.g. a task inside a child process.
 */
export async function pollUntil<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Resolves once the wall clock has passed `afterMs`, so that the next status timestamp the
 * server writes is strictly later (timestamps have millisecond resolution).
 */
export async function clockPast(afterMs: number): Promise<void> {
  while (Date.now() <= afterMs) await new Promise((resolve) => setTimeout(resolve, 1));
}
