import { describe, expect, it } from 'vitest';

import { integerOption } from '../../src/protocol/integer-option.js';
import { ConfigurationError } from '../../src/protocol/local-errors.js';

describe('integerOption', () => {
  it('passes an integer at or above the minimum through', () => {
    expect(integerOption('heartbeatMs', 0, 0, 'ms')).toBe(0);
    expect(integerOption('poolSize', 1, 1)).toBe(1);
    expect(integerOption('maxBodyBytes', Number.MAX_SAFE_INTEGER, 1, 'bytes')).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it('refuses fractions, NaN, infinities, unsafe integers and values under the minimum, naming the option', () => {
    for (const value of [0, -1, 1.5, Number.NaN, Infinity, 2 ** 53]) {
      expect(() => integerOption('maxResponseBytes', value, 1, 'bytes')).toThrow(
        new ConfigurationError(
          `maxResponseBytes must be a positive integer (bytes); got ${String(value)}`,
        ),
      );
    }
    expect(() => integerOption('retry.baseDelayMs', -1, 0, 'ms')).toThrow(
      'retry.baseDelayMs must be an integer >= 0 (ms); got -1',
    );
    expect(() => integerOption('resumeStreams.maxAttempts', -2, 0)).toThrow(
      'resumeStreams.maxAttempts must be an integer >= 0; got -2',
    );
  });
});
