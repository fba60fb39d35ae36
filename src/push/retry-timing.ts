/**
 * When to try a failed delivery again: exponential backoff with jitter, `Retry-After` when the
 * receiver says, and a slow probe once a config is marked failing.
 */

/** How retries are paced. */
export interface RetryTiming {
  /** The first retry's delay; doubled per consecutive failure. */
  readonly baseMs: number;
  /** The longest backoff. */
  readonly maxMs: number;
  /** Consecutive failures after which a config is marked failing. */
  readonly failingAfter: number;
  /** The delay between attempts to a failing config. */
  readonly probeMs: number;
}

/**
 * The delay before the next attempt after `failures` consecutive failures: "equal jitter" — half
 * the exponential delay fixed, half random, so that configs failing together spread out.
 */
export function retryDelayMs(
  timing: RetryTiming,
  failures: number,
  retryAfter: number | undefined,
  random: () => number = Math.random,
): number {
  if (failures >= timing.failingAfter) return Math.max(timing.probeMs, retryAfter ?? 0);
  const exponential = Math.min(timing.maxMs, timing.baseMs * 2 ** Math.max(0, failures - 1));
  // Whole milliseconds: the next attempt's time is stored in integer columns (SQLite, PostgreSQL).
  const jittered = Math.round(exponential / 2 + (random() * exponential) / 2);
  // The receiver's own word wins, within the probe interval at most.
  return retryAfter === undefined
    ? jittered
    : Math.min(Math.max(retryAfter, jittered), timing.probeMs);
}

/** `Retry-After` (seconds, or an HTTP date) as a delay in ms, or `undefined` when absent/invalid. */
export function retryAfterMs(
  value: string | string[] | undefined,
  now: number,
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(text)) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
