/**
 * Local errors of the client about the agent it was pointed at: its card, its interfaces. Errors
 * of a call in flight (connection, timeout, malformed response) come from the bindings'
 * transports (`bindings/client/transport-errors.ts`) and are re-exported here; an A2A error the
 * agent answered is one of the wire error classes of `tandem`, rebuilt with its details.
 */

import type { FieldViolation } from '../protocol/error-details.js';
import { LocalError } from '../protocol/local-errors.js';

export {
  CallTimeoutError,
  ConnectionError,
  CustomJsonRpcError,
  HttpStatusError,
  ProtocolViolationError,
} from '../bindings/client/transport-errors.js';

/** The agent card could not be fetched or is not a valid A2A 1.0 card. */
export class AgentCardError extends LocalError {
  constructor(
    message: string,
    /** Every problem found, by field path; empty when the card could not be fetched at all. */
    readonly violations: readonly FieldViolation[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** No interface of the card matches the bindings the caller accepts (at protocol version 1.0). */
export class NoCompatibleInterfaceError extends LocalError {}
