/**
 * Retries of idempotent calls (spec 3.3.1: GetTask, ListTasks, CancelTask and the other reads and
 * deletes; card fetches) when the failure is transient: the connection failed, a gateway answered
 * 502/503/504, or the server asked to come back later (429 or 503 with `Retry-After`). Delays grow
 * exponentially with full jitter (a random delay between 0 and the exponential bound), so that
 * clients that failed together do not retry together; a `Retry-After` is honoured, capped at the
 * maximum delay. Sleeps end at once when the call is aborted. `SendMessage` and
 * `SendStreamingMessage` are never retried: the agent may already be working on the message.
 */

import { integerOption } from '../protocol/integer-option.js';
import { sleep } from './call-scope.js';
import { CallTimeoutError, ConnectionError, HttpStatusError } from './client-errors.js';

/** Retries of idempotent calls (GetTask, ListTasks, CancelTask, card fetches). */
export interface RetryOptions {
  /** Attempts in total, the first included. Default 3. */
  readonly maxAttempts?: number;
  /** First backoff delay; doubles each time, with full jitter. Default 200 ms. */
  readonly baseDelayMs?: number;
  /** Upper bound of one delay (a `Retry-After` above it is capped too). Default 5 s. */
  readonly maxDelayMs?: number;
}

/** Retry options with defaults applied. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A number in [0, 1); `Math.random` unless a test pins it. */
  readonly random: () => number;
}

const DEFAULTS = { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 5_000 } as const;

/**
 * Applies defaults; `false` means a single attempt.
 *
 * @throws ConfigurationError for a value out of range.
 */
export function resolveRetryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { ...DEFAULTS, maxAttempts: 1, random: Math.random };
  return {
    maxAttempts: integerOption(
      'retry.maxAttempts',
      options?.maxAttempts ?? DEFAULTS.maxAttempts,
      1,
    ),
    baseDelayMs: integerOption(
      'retry.baseDelayMs',
      options?.baseDelayMs ?? DEFAULTS.baseDelayMs,
      0,
      'ms',
    ),
    maxDelayMs: integerOption(
      'retry.maxDelayMs',
      options?.maxDelayMs ?? DEFAULTS.maxDelayMs,
      0,
      'ms',
    ),
    random: Math.random,
  };
}

/**
 * A `Retry-After` value in ms: delay-seconds or an HTTP date (RFC 9110 10.2.3); `undefined` when
 * absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The exponential bound of attempt `n` (1 = the first retry), with full jitter. */
export function backoffDelay(policy: RetryPolicy, retry: number): number {
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(policy.random() * bound);
}

/**
 * How long to wait before retrying after `error`, or `undefined` when it is not transient. A time
 * limit that expired is final: the call's time is spent.
 */
export function retryDelay(error: unknown, policy: RetryPolicy, retry: number): number | undefined {
  if (error instanceof CallTimeoutError) return undefined;
  if (error instanceof HttpStatusError) {
    const after = parseRetryAfter(error.retryAfter);
    const transient = error.status === 502 || error.status === 503 || error.status === 504;
    if (after !== undefined && (transient || error.status === 429)) {
      return Math.min(after, policy.maxDelayMs);
    }
    return transient ? backoffDelay(policy, retry) : undefined;
  }
  return error instanceof ConnectionError ? backoffDelay(policy, retry) : undefined;
}

/**
 * Runs `attempt` until it succeeds, fails with a non-transient error, or the attempts are spent;
 * the last error is thrown as it is.
 */
export async function withRetry<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  signal: AbortSignal,
): Promise<T> {
  for (let made = 1; ; made++) {
    try {
      return await attempt();
    } catch (error) {
      const delay = made < policy.maxAttempts ? retryDelay(error, policy, made) : undefined;
      if (delay === undefined || signal.aborted) throw error;
      await sleep(delay, signal);
    }
  }
}
