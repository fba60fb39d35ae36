/**
 * The `google.rpc` error detail objects that A2A errors carry (spec 3.3.2, 9.5, 11.6), in their
 * ProtoJSON `Any` form: each has an `@type` naming its message.
 */

import type { JsonValue } from './json.js';

/** The `domain` of every A2A `ErrorInfo` (spec 10.6, 11.6). */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** `google.rpc.ErrorInfo`: the machine-readable reason of an error. */
export interface ErrorInfoDetail {
  '@type': typeof ERROR_INFO_TYPE;
  /** The A2A error type in UPPER_SNAKE_CASE without the `Error` suffix, e.g. `TASK_NOT_FOUND`. */
  reason: string;
  domain: string;
  /** Context for the error; `google.rpc.ErrorInfo` restricts values to strings. */
  metadata?: { [key: string]: string };
}

/** One violated field of a request, as in `google.rpc.BadRequest.FieldViolation`. */
export interface FieldViolation {
  /** The path of the field, e.g. `message.parts[0].text` or `configuration.historyLength`. */
  field: string;
  /** Why the value is invalid, phrased so that the caller knows what to send instead. */
  description: string;
}

/** `google.rpc.BadRequest`: every field that failed validation. */
export interface BadRequestDetail {
  '@type': typeof BAD_REQUEST_TYPE;
  fieldViolations: FieldViolation[];
}

/** Any other detail object; A2A only requires that it names its type. */
export interface OtherErrorDetail {
  '@type': string;
  [key: string]: JsonValue;
}

/** An entry of `error.data` (JSON-RPC) or `error.details` (HTTP+JSON). */
export type ErrorDetail = ErrorInfoDetail | BadRequestDetail | OtherErrorDetail;

/** Builds an A2A `ErrorInfo` detail. */
export function errorInfo(reason: string, metadata?: { [key: string]: string }): ErrorInfoDetail {
  const detail: ErrorInfoDetail = { '@type': ERROR_INFO_TYPE, reason, domain: A2A_ERROR_DOMAIN };
  if (metadata && Object.keys(metadata).length > 0) detail.metadata = metadata;
  return detail;
}

/** Builds a `BadRequest` detail listing the violated fields. */
export function badRequest(fieldViolations: FieldViolation[]): BadRequestDetail {
  return { '@type': BAD_REQUEST_TYPE, fieldViolations };
}

/** Narrows a detail to `ErrorInfo`. */
export function isErrorInfoDetail(detail: unknown): detail is ErrorInfoDetail {
  return (
    typeof detail === 'object' &&
    detail !== null &&
    (detail as { '@type'?: unknown })['@type'] === ERROR_INFO_TYPE &&
    typeof (detail as { reason?: unknown }).reason === 'string'
  );
}

/** Narrows a detail to `BadRequest`. */
export function isBadRequestDetail(detail: unknown): detail is BadRequestDetail {
  return (
    typeof detail === 'object' &&
    detail !== null &&
    (detail as { '@type'?: unknown })['@type'] === BAD_REQUEST_TYPE &&
    Array.isArray((detail as { fieldViolations?: unknown }).fieldViolations)
  );
}
