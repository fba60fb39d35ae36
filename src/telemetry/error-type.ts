/**
 * `error.type` of a failed call: low-cardinality by construction, never an error's message. An
 * A2A error is its type as the spec names it (`TaskNotFoundError`), the same on every binding so
 * that one query covers them all; a caller's or the time limit's abort is `canceled` or
 * `timeout`; anything else the conventions' `_OTHER`, unless the layer that knows it (the
 * client's transport errors) classifies it first.
 */

import { A2AError } from '../protocol/errors.js';
import { OTHER_ERROR_TYPE } from './telemetry-attributes.js';

/** The `error.type` of an error, where this layer can tell; `undefined` otherwise. */
export function protocolErrorTypeOf(error: unknown): string | undefined {
  if (error instanceof A2AError) return error.type;
  if (typeof error === 'object' && error !== null) {
    const name = (error as { name?: unknown }).name;
    if (name === 'AbortError') return 'canceled';
    if (name === 'TimeoutError') return 'timeout';
  }
  return undefined;
}

/** {@link protocolErrorTypeOf}, with `_OTHER` for what it cannot classify. */
export function errorTypeOf(error: unknown): string {
  return protocolErrorTypeOf(error) ?? OTHER_ERROR_TYPE;
}
