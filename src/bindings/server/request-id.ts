/**
 * The request id of a call, on every binding: the caller's `X-Request-Id` (gRPC metadata
 * `x-request-id`) when it is one a log line and a header can carry safely, else a new UUID. The
 * response returns it (an HTTP header; gRPC response metadata, or the trailers of an error) and
 * the request log carries it, so that a caller's report of one call finds its line.
 */

/** The header (and gRPC metadata key) that carries the request id. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * What a caller's id may be: 1 to 128 characters among letters, digits and `-._:/+=@` — a UUID, a
 * ULID, a proxy's hex or base64 id — so that it can never break a log line or a header, nor grow
 * one without bound.
 */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/** The caller's id when valid, else a new one. */
export function requestIdOf(received: string | null | undefined): string {
  return typeof received === 'string' && VALID_REQUEST_ID.test(received)
    ? received
    : crypto.randomUUID();
}
