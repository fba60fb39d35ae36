import { ConfigurationError } from './local-errors.js';

/**
 * Checks an integer option (a limit, a count, a delay) so that every one is refused the same way:
 * the message names the option, the range and the unit, and shows the value given.
 *
 * @param unit - what the number counts ("bytes", "ms"), for the message.
 * @throws ConfigurationError unless `value` is a safe integer >= `min`.
 */
export function integerOption(name: string, value: number, min: number, unit?: string): number {
  if (!Number.isSafeInteger(value) || value < min) {
    const range = min === 1 ? 'a positive integer' : `an integer >= ${min}`;
    const counted = unit === undefined ? '' : ` (${unit})`;
    throw new ConfigurationError(`${name} must be ${range}${counted}; got ${String(value)}`);
  }
  return value;
}
