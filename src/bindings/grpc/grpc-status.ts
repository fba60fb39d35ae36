/**
 * A2A errors as gRPC statuses (spec 10.6): the status code of spec 5.4, the message, and a
 * `google.rpc.Status` in the `grpc-status-details-bin` trailer whose details carry the error's
 * `google.rpc.ErrorInfo` (reason, domain `a2a-protocol.org`, metadata) and, for a validation
 * error, its `google.rpc.BadRequest` field violations. Server and client halves share this file,
 * so that an error survives the round trip with its type and details.
 *
 * Only the two detail types A2A defines are carried: a detail of another type has no binary form
 * without its message definition (the protobuf JSON mapping refuses such an `Any` too), so it is
 * left out of the binary status; the message and the A2A reason always go.
 */

import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { anyPack, anyUnpack, type Any } from '@bufbuild/protobuf/wkt';
import {
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  isBadRequestDetail,
  isErrorInfoDetail,
  type ErrorDetail,
} from '../../protocol/error-details.js';
import { grpcCodeOf } from '../../protocol/error-serialization.js';
import type { A2AError } from '../../protocol/errors.js';
import { BadRequestSchema, ErrorInfoSchema } from './generated/google/rpc/error_details_pb.js';
import { StatusSchema } from './generated/google/rpc/status_pb.js';

/** The trailer that carries the binary `google.rpc.Status`. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** The gRPC status codes Tandem answers or reads, by canonical name (google.rpc.Code). */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** A gRPC status as sent: code, message and the encoded `google.rpc.Status`. */
export interface EncodedStatus {
  readonly code: number;
  readonly message: string;
  readonly details: Uint8Array;
}

function packDetail(detail: ErrorDetail): Any | undefined {
  if (detail['@type'] === ERROR_INFO_TYPE && isErrorInfoDetail(detail)) {
    return anyPack(
      ErrorInfoSchema,
      create(ErrorInfoSchema, {
        reason: detail.reason,
        domain: detail.domain,
        metadata: detail.metadata ?? {},
      }),
    );
  }
  if (detail['@type'] === BAD_REQUEST_TYPE && isBadRequestDetail(detail)) {
    return anyPack(
      BadRequestSchema,
      create(BadRequestSchema, {
        fieldViolations: detail.fieldViolations.map((v) => ({
          field: v.field,
          description: v.description,
        })),
      }),
    );
  }
  return undefined;
}

/** Any status as its binary `google.rpc.Status`. */
export function encodeStatus(
  code: number,
  message: string,
  details: readonly ErrorDetail[],
): EncodedStatus {
  const packed = details.flatMap((detail) => packDetail(detail) ?? []);
  const status = create(StatusSchema, { code, message, details: packed });
  return { code, message, details: toBinary(StatusSchema, status) };
}

/** The status of an A2A error: its code of spec 5.4, its message and details. */
export function statusOfError(error: A2AError): EncodedStatus {
  return encodeStatus(grpcCodeOf(error), error.message, error.details);
}

/** What a received `google.rpc.Status` says. */
export interface DecodedStatus {
  readonly code: number;
  readonly message: string;
  /** The ErrorInfo and BadRequest details, in their ProtoJSON `Any` form. */
  readonly details: ErrorDetail[];
}

/**
 * Reads a `grpc-status-details-bin` value. Details of other types are skipped.
 *
 * @throws Error when the bytes are no `google.rpc.Status`.
 */
export function decodeStatus(bytes: Uint8Array): DecodedStatus {
  const status = fromBinary(StatusSchema, bytes);
  const details: ErrorDetail[] = [];
  for (const any of status.details) {
    const info = anyUnpack(any, ErrorInfoSchema);
    if (info !== undefined) {
      const metadata = { ...info.metadata };
      details.push({
        '@type': ERROR_INFO_TYPE,
        reason: info.reason,
        domain: info.domain,
        ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      });
      continue;
    }
    const bad = anyUnpack(any, BadRequestSchema);
    if (bad !== undefined) {
      details.push({
        '@type': BAD_REQUEST_TYPE,
        fieldViolations: bad.fieldViolations.map((v) => ({
          field: v.field,
          description: v.description,
        })),
      });
    }
  }
  return { code: status.code, message: status.message, details };
}
