/**
 * The limiter on failed authentications by itself: its settings are checked at startup, it
 * tracks only addresses that failed, and its memory is bounded (the least recently seen address
 * is forgotten first). Its answers on the wire are tested over real servers in
 * test/e2e/authentication.test.ts.
 */

import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/index.js';
import {
  FailedAuthenticationLimiter,
  LimitExceededError,
  MAX_TRACKED_CALLERS,
} from '../../../src/server.js';

describe('FailedAuthenticationLimiter', () => {
  it('refuses settings that are not whole numbers of at least 1, naming them', () => {
    expect(() => new FailedAuthenticationLimiter({ maxFailures: 0 })).toThrow(
      new ConfigurationError('failedAuthentications.maxFailures must be a positive integer; got 0'),
    );
    expect(() => new FailedAuthenticationLimiter({ windowSeconds: 1.5 })).toThrow(
      /failedAuthentications\.windowSeconds must be a positive integer; got 1\.5/,
    );
  });

  it('holds off an address once it is out of failures, until it regains one', () => {
    let now = 0;
    const limiter = new FailedAuthenticationLimiter({
      maxFailures: 2,
      windowSeconds: 10,
      now: () => now,
    });
    limiter.recordFailure('10.0.0.1');
    expect(limiter.check('10.0.0.1')).toBeUndefined();
    limiter.recordFailure('10.0.0.1');
    const held = limiter.check('10.0.0.1');
    expect(held).toBeInstanceOf(LimitExceededError);
    expect(held).toMatchObject({ limit: 'failedAuthentications', retryAfterSeconds: 5 });
    // Another address, and callers without one, have budgets of their own.
    expect(limiter.check('10.0.0.2')).toBeUndefined();
    expect(limiter.check(undefined)).toBeUndefined();
    // The same IPv4 address mapped into IPv6 (a dual-stack HTTP server) is the same address.
    expect(limiter.check('::ffff:10.0.0.1')).toBeDefined();
    now += 4_000;
    expect(limiter.check('10.0.0.1')?.retryAfterSeconds).toBe(1);
    now += 1_000;
    expect(limiter.check('10.0.0.1')).toBeUndefined();
  });

  it('keeps at most MAX_TRACKED_CALLERS addresses, forgetting the least recently seen', () => {
    const limiter = new FailedAuthenticationLimiter({ maxFailures: 1, now: () => 0 });
    limiter.recordFailure('first');
    expect(limiter.check('first')).toBeDefined();
    for (let i = 0; i < MAX_TRACKED_CALLERS; i++) limiter.recordFailure(`address-${i}`);
    expect(limiter.check('first')).toBeUndefined();
    expect(limiter.check(`address-${MAX_TRACKED_CALLERS - 1}`)).toBeDefined();
  });
});
