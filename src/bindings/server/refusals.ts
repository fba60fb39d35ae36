/**
 * The one mapping of the refusals made before an operation — by the identity hook
 * ({@link AuthenticationError}, or {@link LimitExceededError} for an address that failed too
 * often) or by a limit — to what every binding answers: a status, the `google.rpc.Code` name, a
 * message safe to show, and the headers that go with it (`WWW-Authenticate`, `Retry-After`).
 * Each binding only renders it in its own form: an HTTP status with its error body, a gRPC status
 * with metadata.
 */

import { AuthenticationError } from './authentication.js';
import { LimitExceededError } from './call-limit-options.js';
import type { HttpRefusal } from './server-binding.js';

/** The refusal a thrown (or returned) value stands for; `undefined` for anything else. */
export function refusalOf(error: unknown): HttpRefusal | undefined {
  if (error instanceof AuthenticationError) return authenticationRefusal(error);
  if (error instanceof LimitExceededError) return limitRefusal(error);
  return undefined;
}

/** 401 `UNAUTHENTICATED` or 403 `PERMISSION_DENIED`, with the challenges in `WWW-Authenticate`. */
function authenticationRefusal(error: AuthenticationError): HttpRefusal {
  return {
    status: error.status,
    code: error.status === 401 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED',
    message: error.message,
    headers: error.challenges.length > 0 ? { 'www-authenticate': error.challenges.join(', ') } : {},
  };
}

/** 429 `RESOURCE_EXHAUSTED`, with `Retry-After` when the limit says when. */
function limitRefusal(error: LimitExceededError): HttpRefusal {
  return {
    status: 429,
    code: 'RESOURCE_EXHAUSTED',
    message: error.message,
    headers:
      error.retryAfterSeconds === undefined
        ? {}
        : { 'retry-after': String(error.retryAfterSeconds) },
  };
}
