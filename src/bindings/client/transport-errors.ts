/**
 * Local errors raised by the client halves of the protocol bindings: the call did not get a
 * protocol answer — no connection, too slow, a malformed response, an HTTP failure that carries
 * no A2A error. Like every local error they never cross the wire. Messages say what happened and
 * what to try next, so that a CLI can print them as they are.
 */

import type { FieldViolation } from '../../protocol/error-details.js';
import { LocalError } from '../../protocol/local-errors.js';

/** The agent could not be reached, or the connection failed mid-call (after any retries). */
export class ConnectionError extends LocalError {}

/** A call took longer than its time limit. */
export class CallTimeoutError extends ConnectionError {
  constructor(
    readonly timeoutMs: number,
    message = `The call took longer than ${timeoutMs} ms; raise timeoutMs or check that the agent is responsive`,
  ) {
    super(message);
  }
}

/**
 * The agent answered something that is not a valid response of the protocol (not JSON, wrong
 * shape, an event stream that is not SSE...).
 */
export class ProtocolViolationError extends LocalError {
  constructor(
    message: string,
    readonly violations: readonly FieldViolation[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * An HTTP response whose status says the call failed but whose body carries no A2A error: a 401
 * from an authentication layer, a 502 from a proxy, a 429 from a rate limiter. The status leads
 * the message so that it is visible first (a proxy's HTML page is not).
 */
export class HttpStatusError extends LocalError {
  constructor(
    readonly status: number,
    message: string,
    /** The start of the response body, for diagnostics. */
    readonly body: string,
    /** The raw `Retry-After` header, when the server sent one. */
    readonly retryAfter?: string,
  ) {
    super(message);
  }
}

/**
 * A JSON-RPC error whose code is neither an A2A code (-32001 to -32009) nor a JSON-RPC standard
 * code. Spec 3.3.2 lets servers report e.g. authentication failures with custom codes, so this is
 * not a protocol violation; `code` and `data` are kept as the agent sent them.
 */
export class CustomJsonRpcError extends LocalError {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(`JSON-RPC error ${code}: ${message}`);
  }
}
