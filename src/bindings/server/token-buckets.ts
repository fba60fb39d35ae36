/**
 * The rate limiter every limit shares: one token bucket per caller key, refilled continuously.
 * A bucket holds at most `capacity` tokens (the burst) and regains `perMinute` tokens a minute.
 *
 * At most {@link MAX_TRACKED_CALLERS} keys are tracked (the least recently seen forgotten first,
 * which only gives them a full bucket again), so memory stays bounded whatever the number of
 * callers. A key is tracked only once it has taken a token: {@link TokenBuckets.wait} on a key
 * never seen costs nothing.
 */

/** Callers whose buckets are kept at once; the least recently seen are forgotten first. */
export const MAX_TRACKED_CALLERS = 100_000;

interface Bucket {
  tokens: number;
  updated: number;
}

/** Token buckets by caller key, bounded in number. */
export class TokenBuckets {
  readonly #capacity: number;
  /** Tokens regained per millisecond. */
  readonly #rate: number;
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;

  /**
   * @param perMinute tokens regained per minute; also the capacity unless `capacity` is given.
   * @param now the clock, in milliseconds (injectable, so that tests need no sleeps).
   */
  constructor(perMinute: number, now: () => number, capacity: number = perMinute) {
    this.#capacity = capacity;
    this.#rate = perMinute / 60_000;
    this.#now = now;
  }

  /** Takes a token; returns the seconds to wait when there is none. */
  take(key: string): number | undefined {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= MAX_TRACKED_CALLERS) {
        const oldest = this.#buckets.keys().next();
        if (oldest.done !== true) this.#buckets.delete(oldest.value);
      }
      bucket = { tokens: this.#capacity, updated: now };
    } else {
      // Re-inserted below: the map's order is the order callers were last seen.
      this.#buckets.delete(key);
      this.#refill(bucket, now);
    }
    if (bucket.tokens < 1) {
      this.#buckets.set(key, bucket);
      return this.#secondsToToken(bucket);
    }
    bucket.tokens -= 1;
    this.#buckets.set(key, bucket);
    return undefined;
  }

  /** The seconds to wait before `key` may take a token, or `undefined` if it may now. */
  wait(key: string): number | undefined {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return undefined;
    this.#refill(bucket, this.#now());
    return bucket.tokens < 1 ? this.#secondsToToken(bucket) : undefined;
  }

  #refill(bucket: Bucket, now: number): void {
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.updated) * this.#rate);
    bucket.updated = now;
  }

  #secondsToToken(bucket: Bucket): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate / 1000));
  }
}
