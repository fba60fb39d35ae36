/**
 * Assertions on the typed A2A errors a driver rejects with: which class, and for invalid
 * parameters which fields — the same on every binding.
 */

import { expect } from 'vitest';
import { InvalidParamsError, isA2AError, type A2AError } from '../../src/index.js';
import { CallRefusedError, type RefusalStatus } from './drivers/connection.js';

/** An A2A error class, e.g. `TaskNotFoundError`. */
export type A2AErrorClass<E extends A2AError> = abstract new (...args: never[]) => E;

/** Awaits `promise`, which must reject with an error of class `type`; resolves with the error. */
export async function rejection<E extends A2AError>(
  promise: Promise<unknown>,
  type: A2AErrorClass<E>,
): Promise<E> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (error) {
    if (error instanceof type) return error;
    const seen = isA2AError(error) ? `${error.type}: ${error.message}` : String(error);
    expect.fail(`Expected a ${type.name}, got ${seen}`);
  }
  return expect.fail(`Expected a ${type.name}, got the answer ${JSON.stringify(outcome)}`);
}

/** The field paths an `InvalidParamsError` names (its `BadRequest` detail). */
export function violatedFields(error: A2AError | undefined): string[] {
  return error instanceof InvalidParamsError ? error.violations.map((v) => v.field) : [];
}

/**
 * Awaits `promise`, which must be refused before its operation (authentication, a limit) with
 * `status`; resolves with the refusal.
 */
export async function refusal(
  promise: Promise<unknown>,
  status: RefusalStatus,
): Promise<CallRefusedError> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (error) {
    if (error instanceof CallRefusedError && error.status === status) return error;
    const seen =
      error instanceof CallRefusedError
        ? `${error.status}: ${error.message}`
        : isA2AError(error)
          ? `${error.type}: ${error.message}`
          : String(error);
    expect.fail(`Expected a ${status} refusal, got ${seen}`);
  }
  return expect.fail(`Expected a ${status} refusal, got the answer ${JSON.stringify(outcome)}`);
}
