/**
 * Agents limit how many calls a caller makes (spec 13.4: rate limiting SHOULD be implemented),
 * and a check run makes hundreds. A call refused as one too many — HTTP 429, gRPC
 * `RESOURCE_EXHAUSTED` — is no answer to the check's question, so the probe waits as the agent's
 * `Retry-After` says (a second when it says nothing, ten at most) and asks again, a few times.
 */

/** How many times one call is asked again after a refusal for its rate. */
export const RATE_LIMIT_RETRIES = 5;

const DEFAULT_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 10_000;

/** The wait a `Retry-After` value asks for (seconds, or an HTTP date), in ms. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number {
  if (value === undefined || value.trim() === '') return DEFAULT_WAIT_MS;
  const seconds = Number(value.trim());
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return DEFAULT_WAIT_MS;
  return Math.min(Math.max(ms, 0), LONGEST_WAIT_MS);
}

/** Waits `ms`, or less if `signal` aborts (it then rejects with the signal's reason). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
