/**
 * The checker's local errors. A defect of the agent is never an error: it is a result in the
 * report. These are what keeps the checker from producing a report at all, or what a single
 * request met on its way (a refused connection), which the check that sent it turns into its
 * result.
 */

import { LocalError } from '../protocol/local-errors.js';

/** A request could not be sent or its answer not read: no connection, a reset, a TLS failure. */
export class CheckConnectionError extends LocalError {
  constructor(
    message: string,
    /** The system error code, e.g. `ECONNREFUSED`, when there is one. */
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The agent could not be reached at all: its card could not be fetched (no connection, no HTTP
 * answer), so there is nothing to check. `tandem check` exits 3.
 */
export class AgentUnreachableError extends LocalError {}
