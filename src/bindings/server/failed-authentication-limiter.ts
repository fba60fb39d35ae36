/**
 * Brute-force protection for the identity hook: a peer address that failed to authenticate too
 * often is refused for a while without its credentials being checked at all, so that guessing
 * tokens or API keys costs time, whatever the authentication method and whatever the binding.
 * The HTTP server (JSON-RPC, HTTP+JSON) and the gRPC server check it before `authenticate`; pass
 * one limiter to both so that they count together.
 *
 * It counts refusals that mean "no or wrong credentials" (401) only: a 403 (a caller recognised
 * but lacking a scope) guesses nothing. It is a token bucket per address (the limiter of every
 * limit, `TokenBuckets`): an address may fail `maxFailures` times in a burst, and regains that
 * many failures per `windowSeconds`; once out, it is answered {@link LimitExceededError} (HTTP 429
 * with `Retry-After`, gRPC `RESOURCE_EXHAUSTED`) until it has regained one. Successful calls cost
 * nothing and are not tracked; at most `MAX_TRACKED_CALLERS` addresses are, so memory stays
 * bounded.
 *
 * The address is the connection's peer: behind a proxy every caller shares the proxy's, and
 * callers without one (an embedding that reports no peer) share one budget.
 */

import { LimitExceededError } from './call-limit-options.js';
import { TokenBuckets } from './token-buckets.js';
import { integerOption } from '../../protocol/integer-option.js';

/** Options of {@link FailedAuthenticationLimiter}. */
export interface FailedAuthenticationLimitOptions {
  /** Failed authentications one address may make before it is refused. Default 10. */
  readonly maxFailures?: number | undefined;
  /**
   * Seconds over which an address regains `maxFailures` failures (one every `windowSeconds /
   * maxFailures` seconds, the cool-down once it is refused). Default 300.
   */
  readonly windowSeconds?: number | undefined;
  /** The clock, in milliseconds. Default `Date.now`; tests pass one of their own. */
  readonly now?: (() => number) | undefined;
}

/** The defaults: an honest client that lost its token fails a few times, never ten in a row. */
export const DEFAULT_FAILED_AUTHENTICATION_LIMIT = Object.freeze({
  maxFailures: 10,
  windowSeconds: 300,
});

/**
 * What the servers' `failedAuthentications` option takes: options for a limiter of their own, a
 * limiter to share (between the HTTP and the gRPC server), or `false` for none.
 */
export type FailedAuthenticationsOption =
  FailedAuthenticationLimitOptions | FailedAuthenticationLimiter | false;

function wholeNumber(name: keyof FailedAuthenticationLimitOptions, value: number): number {
  return integerOption(`failedAuthentications.${name}`, value, 1);
}

/** Failed authentications by peer address. */
export class FailedAuthenticationLimiter {
  readonly maxFailures: number;
  readonly windowSeconds: number;
  readonly #buckets: TokenBuckets;

  /** @throws ConfigurationError for a value that is not a positive integer. */
  constructor(options: FailedAuthenticationLimitOptions = {}) {
    this.maxFailures = wholeNumber(
      'maxFailures',
      options.maxFailures ?? DEFAULT_FAILED_AUTHENTICATION_LIMIT.maxFailures,
    );
    this.windowSeconds = wholeNumber(
      'windowSeconds',
      options.windowSeconds ?? DEFAULT_FAILED_AUTHENTICATION_LIMIT.windowSeconds,
    );
    this.#buckets = new TokenBuckets(
      (this.maxFailures * 60) / this.windowSeconds,
      options.now ?? Date.now,
      this.maxFailures,
    );
  }

  /** The refusal of a call from `address` when it is out of failures, else `undefined`. */
  check(address: string | undefined): LimitExceededError | undefined {
    const wait = this.#buckets.wait(keyOf(address));
    if (wait === undefined) return undefined;
    return new LimitExceededError(
      `Too many failed authentications from this address: at most ${this.maxFailures} per ${this.windowSeconds} s; retry in ${wait} s`,
      'failedAuthentications',
      wait,
    );
  }

  /** Counts a failed authentication from `address`. */
  recordFailure(address: string | undefined): void {
    this.#buckets.take(keyOf(address));
  }
}

/**
 * The key of an address: an IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`, as a dual-stack
 * HTTP server reports it) is the IPv4 address, as gRPC reports it, so that both count together.
 */
function keyOf(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  return address.toLowerCase().startsWith('::ffff:') && address.includes('.')
    ? address.slice(7)
    : address;
}

/**
 * The limiter a server uses: none without authentication (every caller is anonymous, nobody can
 * fail) or with `false`; the one given; else one of its own, with `option`'s settings.
 *
 * @throws ConfigurationError for invalid settings.
 */
export function resolveFailedAuthentications(
  option: FailedAuthenticationsOption | undefined,
  authenticated: boolean,
): FailedAuthenticationLimiter | undefined {
  if (option === false || !authenticated) return undefined;
  if (option instanceof FailedAuthenticationLimiter) return option;
  return new FailedAuthenticationLimiter(option ?? {});
}
