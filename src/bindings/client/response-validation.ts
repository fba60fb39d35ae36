/**
 * Validation of what an agent answers, shared by every transport: a response is parsed strictly
 * against its proto message (`parseMessage`), and anything else is a `ProtocolViolationError`
 * naming every violated field, so that a non-conforming agent is diagnosed at the boundary
 * instead of failing later in the caller's code.
 */

import type { FieldViolation } from '../../protocol/error-details.js';
import type { MessageTypes, StreamResponse } from '../../protocol/generated/types.js';
import { operations } from '../../protocol/operations.js';
import { parseMessage } from '../../protocol/validation.js';
import { ProtocolViolationError } from './transport-errors.js';
import type { UnaryOperationName, UnaryResult } from './client-transport.js';

/** `field: description; field: description`, every violation. */
export function formatViolations(violations: readonly FieldViolation[]): string {
  return violations.map((v) => `${v.field}: ${v.description}`).join('; ');
}

function violation(
  what: string,
  type: string,
  where: string,
  violations: FieldViolation[],
): ProtocolViolationError {
  return new ProtocolViolationError(
    `${what} from ${where} is not a valid ${type} (${formatViolations(violations)})`,
    violations,
  );
}

/**
 * Parses the result of a unary operation. `google.protobuf.Empty` results (`{}`, or no body at
 * all) become `undefined`.
 *
 * @param where the request, as `METHOD url`, for the message.
 * @throws ProtocolViolationError listing every violation.
 */
export function parseOperationResult<N extends UnaryOperationName>(
  operation: N,
  value: unknown,
  where: string,
): UnaryResult<N> {
  const type = operations[operation].responseType;
  if (type === 'Empty') {
    if (
      value === undefined ||
      value === null ||
      (typeof value === 'object' && !Array.isArray(value))
    )
      return undefined as UnaryResult<N>;
    throw violation(`The ${operation} result`, 'google.protobuf.Empty', where, [
      { field: 'result', description: 'must be an empty object' },
    ]);
  }
  const parsed = parseMessage(type as keyof MessageTypes, value, { root: 'result' });
  if (!parsed.success) throw violation(`The ${operation} result`, type, where, parsed.violations);
  return parsed.value as UnaryResult<N>;
}

/**
 * Parses one event of a stream.
 *
 * @throws ProtocolViolationError listing every violation.
 */
export function parseStreamPayload(value: unknown, where: string): StreamResponse {
  const parsed = parseMessage('StreamResponse', value, { root: 'event' });
  if (!parsed.success) throw violation('An event', 'StreamResponse', where, parsed.violations);
  return parsed.value;
}
