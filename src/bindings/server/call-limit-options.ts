/**
 * The abuse limits of spec 13.4 as options, and how a call they refuse is reported: the contract
 * between whoever configures limits and every binding that answers their refusals. Rate and
 * concurrency hits are a {@link LimitExceededError} — a local error each binding answers in its
 * own form (HTTP 429 with `Retry-After`, gRPC `RESOURCE_EXHAUSTED`). What one task may hold is the
 * runtime's business (`TaskContentLimits`, an option of `createRequestHandler`).
 */

import { LocalError } from '../../protocol/local-errors.js';

/** The limits per caller (principal, or address when anonymous), and the parts per message. */
export interface CallLimitsOptions {
  /** Operations per minute. Default 1,200 (20/s sustained, bursts of 1,200). */
  readonly requestsPerMinute?: number | undefined;
  /** New tasks (messages that do not continue a task) per minute. Default 300. */
  readonly tasksPerMinute?: number | undefined;
  /** Streams open at once. Default 64. */
  readonly concurrentStreams?: number | undefined;
  /** Parts in one message. Default 256. */
  readonly partsPerMessage?: number | undefined;
}

/** Every call limit, set. */
export type CallLimitValues = { readonly [K in keyof CallLimitsOptions]-?: number };

/** The defaults: generous for honest clients, a ceiling for runaway ones. */
export const DEFAULT_CALL_LIMITS: CallLimitValues = Object.freeze({
  requestsPerMinute: 1_200,
  tasksPerMinute: 300,
  concurrentStreams: 64,
  partsPerMessage: 256,
});

/**
 * The name of a limit: an option of {@link CallLimitsOptions}, or `failedAuthentications`, the
 * servers' limit on failed authentications per address (enforced before the call has a caller).
 */
export type LimitName = keyof CallLimitsOptions | 'failedAuthentications';

/** A call refused by a limit. */
export class LimitExceededError extends LocalError {
  /**
   * @param limit the limit that refused it (`requestsPerMinute`...).
   * @param retryAfterSeconds when the caller may try again (rate limits).
   */
  constructor(
    message: string,
    readonly limit: LimitName,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}
