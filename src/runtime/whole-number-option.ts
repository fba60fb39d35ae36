/**
 * The check every count-like option shares (limits, budgets): a whole number of at least 1, with
 * one wording of the error whichever option it is.
 */

import { ConfigurationError } from '../protocol/local-errors.js';

/**
 * `value`, when it is a whole number of at least 1.
 *
 * @param option the option's path as the caller wrote it (`limits.historyLength`).
 * @throws ConfigurationError naming `option` otherwise.
 */
export function wholeNumberOption(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigurationError(`${option} must be a whole number of at least 1, got ${value}`);
  }
  return value;
}
