import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, UsageFailure } from '../../src/cli/cli-values.js';
import { closestMatch, didYouMean } from '../../src/cli/did-you-mean.js';

describe('durations on the command line', () => {
  it('reads each unit', () => {
    expect(parseDuration('250ms', '--x')).toBe(250);
    expect(parseDuration('30s', '--x')).toBe(30_000);
    expect(parseDuration('5m', '--x')).toBe(300_000);
    expect(parseDuration('1.5h', '--x')).toBe(5_400_000);
    expect(parseDuration('7d', '--x')).toBe(604_800_000);
  });

  it('refuses a bare number and shows the form to use', () => {
    expect(() => parseDuration('30', '--retention')).toThrow(UsageFailure);
    expect(() => parseDuration('30', '--retention')).toThrow(
      '--retention needs a unit: give 30s, 30m or 30d',
    );
  });

  it('accepts a bare zero, which means the same in every unit', () => {
    expect(parseDuration('0', '--timeout')).toBe(0);
  });

  it('refuses a value under the option minimum, naming the minimum', () => {
    expect(() => parseDuration('30s', '--retention', { minMs: 60_000 })).toThrow(
      '--retention must be at least 1m, got "30s"',
    );
    expect(parseDuration('1m', '--retention', { minMs: 60_000 })).toBe(60_000);
  });

  it('writes milliseconds back in the largest unit', () => {
    expect(formatDuration(1000)).toBe('1s');
    expect(formatDuration(86_400_000)).toBe('1d');
    expect(formatDuration(1500)).toBe('1500ms');
  });
});

describe('did you mean', () => {
  it('finds swapped, missing and extra letters', () => {
    expect(closestMatch('sned', ['send', 'stream', 'serve'])).toBe('send');
    expect(closestMatch('prot', ['port', 'host'])).toBe('port');
    expect(closestMatch('jsn', ['json', 'junit'])).toBe('json');
    expect(closestMatch('temprature', ['temperature', 'model'])).toBe('temperature');
  });

  it('suggests nothing for a word far from every known one', () => {
    expect(closestMatch('zzzzzz', ['send', 'stream'])).toBeUndefined();
    expect(didYouMean('zzzzzz', ['send'])).toBe('');
    expect(didYouMean('sned', ['send'])).toBe('; did you mean "send"?');
  });
});
