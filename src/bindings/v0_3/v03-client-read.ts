/**
 * How the 0.3 client transports read what a 0.3 agent answers: a value the translation cannot
 * carry into 1.0 is the agent's protocol violation, naming every field, never a partial value.
 */

import { ProtocolViolationError } from '../client/transport-errors.js';
import { UntranslatableError } from './translate/untranslatable.js';

/**
 * Reads a 0.3 value into 1.0.
 *
 * @throws ProtocolViolationError listing what cannot be read.
 */
export function translated<T>(where: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof UntranslatableError)) throw error;
    throw new ProtocolViolationError(
      `${error.message} (from ${where}, an A2A 0.3 agent)`,
      error.violations,
      { cause: error },
    );
  }
}
