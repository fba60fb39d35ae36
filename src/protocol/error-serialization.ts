/**
 * Wire errors to and from their two JSON forms: the JSON-RPC error object (spec 9.5) and the
 * `google.rpc.Status` body of the HTTP+JSON binding (spec 11.6). Server and client halves of the
 * bindings share these so that an error survives the round trip with its type and details.
 */

import {
  A2A_ERROR_TYPES,
  errorReasonOf,
  grpcStatusCode,
  jsonRpcCodeOf,
  type A2AErrorType,
} from './error-codes.js';
import {
  A2A_ERROR_DOMAIN,
  isBadRequestDetail,
  isErrorInfoDetail,
  type ErrorDetail,
} from './error-details.js';
import { createA2AError, type A2AError } from './errors.js';

/** The JSON-RPC 2.0 error object. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  /** A2A puts its `google.rpc` detail objects here (spec 9.5). */
  data?: unknown;
}

/** The body of an HTTP+JSON error response: a `google.rpc.Status` under `error`. */
export interface HttpErrorBody {
  error: {
    /** The HTTP status code. */
    code: number;
    /** The canonical gRPC status name, e.g. `NOT_FOUND`. */
    status: string;
    message: string;
    details: ErrorDetail[];
  };
}

/** Serializes a wire error as a JSON-RPC error object; `data` is omitted when there are no details. */
export function toJsonRpcError(error: A2AError): JsonRpcErrorObject {
  const object: JsonRpcErrorObject = { code: error.code, message: error.message };
  if (error.details.length > 0) object.data = error.details;
  return object;
}

/** Serializes a wire error as the HTTP+JSON error body; the HTTP status is `error.httpStatus`. */
export function toHttpErrorBody(error: A2AError): HttpErrorBody {
  return {
    error: {
      code: error.httpStatus,
      status: error.grpcStatus,
      message: error.message,
      details: error.details,
    },
  };
}

/** The numeric gRPC status of an error, for the gRPC binding's trailers. */
export function grpcCodeOf(error: A2AError): number {
  return grpcStatusCode(error.grpcStatus);
}

function typeOfJsonRpcCode(code: number): A2AErrorType | undefined {
  return A2A_ERROR_TYPES.find((type) => jsonRpcCodeOf(type) === code);
}

function typeOfReason(reason: string): A2AErrorType | undefined {
  return A2A_ERROR_TYPES.find((type) => errorReasonOf(type) === reason);
}

/**
 * Separates the `ErrorInfo` that the error class recreates itself (same domain and reason) from
 * the other details, which are kept as they came.
 */
function splitDetails(
  type: A2AErrorType,
  details: unknown,
): { metadata?: { [key: string]: string }; details: ErrorDetail[] } {
  if (!Array.isArray(details)) return { details: [] };
  const reason = errorReasonOf(type);
  const rest: ErrorDetail[] = [];
  let metadata: { [key: string]: string } | undefined;
  for (const detail of details as unknown[]) {
    if (
      metadata === undefined &&
      reason !== undefined &&
      isErrorInfoDetail(detail) &&
      detail.domain === A2A_ERROR_DOMAIN &&
      detail.reason === reason
    ) {
      metadata = detail.metadata ?? {};
      continue;
    }
    if (
      typeof detail === 'object' &&
      detail !== null &&
      typeof (detail as { '@type'?: unknown })['@type'] === 'string'
    ) {
      rest.push(detail as ErrorDetail);
    }
  }
  return metadata === undefined ? { details: rest } : { metadata, details: rest };
}

/**
 * Rebuilds the typed error from a JSON-RPC error object, with its details. Returns `undefined`
 * for a code outside the A2A and JSON-RPC standard sets; the caller decides how to surface it.
 */
export function fromJsonRpcError(object: JsonRpcErrorObject): A2AError | undefined {
  const type = typeOfJsonRpcCode(object.code);
  if (type === undefined) return undefined;
  const { metadata, details } = splitDetails(type, object.data);
  return createA2AError(type, object.message, metadata ? { metadata, details } : { details });
}

/**
 * Rebuilds the typed error from an HTTP+JSON error response. The `ErrorInfo` reason decides the
 * type (several A2A errors share an HTTP status); without one, the status does where it is
 * unambiguous. Returns `undefined` when neither identifies an error type.
 */
export function fromHttpErrorBody(httpStatus: number, body: unknown): A2AError | undefined {
  const error =
    typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const status =
    typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const message = typeof status.message === 'string' ? status.message : undefined;
  const rawDetails: unknown[] = Array.isArray(status.details) ? (status.details as unknown[]) : [];
  const reasonDetail = rawDetails.find(
    (d) => isErrorInfoDetail(d) && d.domain === A2A_ERROR_DOMAIN,
  );
  let type = isErrorInfoDetail(reasonDetail) ? typeOfReason(reasonDetail.reason) : undefined;
  if (type === undefined) {
    if (rawDetails.some(isBadRequestDetail)) type = 'InvalidParamsError';
    else if (status.status === 'UNIMPLEMENTED') type = 'MethodNotFoundError';
    else if (httpStatus === 500) type = 'InternalError';
  }
  if (type === undefined) return undefined;
  const { metadata, details } = splitDetails(type, rawDetails);
  return createA2AError(type, message, metadata ? { metadata, details } : { details });
}

/**
 * Rebuilds the typed error from a gRPC status (spec 10.6): the `ErrorInfo` reason decides the
 * type; without one, a `BadRequest` detail means `InvalidParamsError`, and `INVALID_ARGUMENT`,
 * `UNIMPLEMENTED` and `INTERNAL` name the JSON-RPC standard errors they stand for. Returns
 * `undefined` for any other status (`UNAVAILABLE`, `UNAUTHENTICATED`...): not an A2A error.
 *
 * @param code the numeric gRPC status code.
 * @param details the status details in their ProtoJSON `Any` form.
 */
export function fromGrpcStatus(
  code: number,
  message: string,
  details: readonly unknown[],
): A2AError | undefined {
  const reasonDetail = details.find((d) => isErrorInfoDetail(d) && d.domain === A2A_ERROR_DOMAIN);
  let type = isErrorInfoDetail(reasonDetail) ? typeOfReason(reasonDetail.reason) : undefined;
  if (type === undefined) {
    if (details.some(isBadRequestDetail)) type = 'InvalidParamsError';
    else if (code === grpcStatusCode('INVALID_ARGUMENT')) type = 'InvalidRequestError';
    else if (code === grpcStatusCode('UNIMPLEMENTED')) type = 'MethodNotFoundError';
    else if (code === grpcStatusCode('INTERNAL')) type = 'InternalError';
  }
  if (type === undefined) return undefined;
  const split = splitDetails(type, details);
  return createA2AError(
    type,
    message,
    split.metadata
      ? { metadata: split.metadata, details: split.details }
      : { details: split.details },
  );
}
