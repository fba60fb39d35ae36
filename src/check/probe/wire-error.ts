/**
 * An error as an agent answered it, in the form of its binding, with everything the checks
 * weigh: the error type it stands for, each code it carried (JSON-RPC code, HTTP status, gRPC
 * status), the `google.rpc.ErrorInfo` reason, the details, and what is wrong with the form. The
 * type is read as spec 5.4 and the bindings define it — the JSON-RPC code; for HTTP+JSON and gRPC
 * the ErrorInfo reason (several errors share a status) — using the protocol's own code tables, so
 * that the checker and Tandem's bindings agree on every mapping.
 */

import {
  A2A_ERROR_TYPES,
  errorReasonOf,
  grpcStatusCode,
  grpcStatusOf,
  httpStatusOf,
  jsonRpcCodeOf,
  type A2AErrorType,
} from '../../protocol/error-codes.js';
import {
  A2A_ERROR_DOMAIN,
  isBadRequestDetail,
  isErrorInfoDetail,
} from '../../protocol/error-details.js';
import type { CheckBindingName, CheckProtocolVersion } from '../check-types.js';

/** An error answer, read. */
export interface WireError {
  readonly binding: CheckBindingName;
  readonly version: CheckProtocolVersion;
  /** The error type it stands for, when its codes say so unambiguously. */
  readonly type: A2AErrorType | undefined;
  /** The binding's code as a report shows it: `-32001`, `HTTP 404`, `NOT_FOUND (5)`. */
  readonly code: string;
  readonly jsonRpcCode?: number;
  readonly httpStatus?: number;
  readonly grpcCode?: number;
  /** The reason of its `ErrorInfo` of domain `a2a-protocol.org`, when it has one. */
  readonly reason?: string;
  readonly message: string | undefined;
  /** The detail objects as received (JSON-RPC `error.data`, `error.details`, status details). */
  readonly details: readonly unknown[];
  /** A refusal made before the operation: authentication (401/403) or a limit (429). */
  readonly refusal?: 'unauthenticated' | 'forbidden' | 'limited';
  /** What is wrong with the error's form, as sentences. */
  readonly formProblems: readonly string[];
}

/** The gRPC status names, by code. */
const GRPC_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/** `NOT_FOUND (5)`. */
export function grpcCodeText(code: number): string {
  return `${GRPC_NAMES[code] ?? 'UNKNOWN'} (${code})`;
}

function typeOfReason(reason: string | undefined): A2AErrorType | undefined {
  return reason === undefined
    ? undefined
    : A2A_ERROR_TYPES.find((type) => errorReasonOf(type) === reason);
}

function typeOfJsonRpcCode(code: number): A2AErrorType | undefined {
  return A2A_ERROR_TYPES.find((type) => jsonRpcCodeOf(type) === code);
}

/** The A2A ErrorInfo of a detail list. */
function reasonOf(details: readonly unknown[]): string | undefined {
  const info = details.find((d) => isErrorInfoDetail(d) && d.domain === A2A_ERROR_DOMAIN);
  return isErrorInfoDetail(info) ? info.reason : undefined;
}

/** A JSON-RPC error object (spec 9.5; 0.3 section 8). */
export function jsonRpcError(
  version: CheckProtocolVersion,
  object: unknown,
  httpStatus: number,
): WireError {
  const problems: string[] = [];
  const error =
    typeof object === 'object' && object !== null ? (object as Record<string, unknown>) : {};
  const code = error.code;
  if (typeof code !== 'number' || !Number.isInteger(code)) {
    problems.push(`error.code is ${JSON.stringify(code)}, not an integer`);
  }
  const message = typeof error.message === 'string' ? error.message : undefined;
  if (message === undefined) problems.push('error.message is not a string');
  const data = error.data;
  const details = Array.isArray(data) ? data : [];
  if (data !== undefined && !Array.isArray(data) && version === '1.0') {
    problems.push('error.data is not an array of detail objects (spec 9.5)');
  }
  const reason = reasonOf(details);
  const type = typeof code === 'number' ? typeOfJsonRpcCode(code) : undefined;
  if (reason !== undefined && type !== undefined && errorReasonOf(type) !== reason) {
    problems.push(`error.code ${String(code)} is ${type}, but its ErrorInfo says ${reason}`);
  }
  return {
    binding: 'JSONRPC',
    version,
    type,
    code: typeof code === 'number' ? String(code) : `code ${JSON.stringify(code)}`,
    ...(typeof code === 'number' ? { jsonRpcCode: code } : {}),
    httpStatus,
    ...(reason === undefined ? {} : { reason }),
    message,
    details,
    ...refusalOfHttp(httpStatus),
    formProblems: problems,
  };
}

function refusalOfHttp(status: number): Pick<WireError, 'refusal'> {
  switch (status) {
    case 401:
      return { refusal: 'unauthenticated' };
    case 403:
      return { refusal: 'forbidden' };
    case 429:
      return { refusal: 'limited' };
    default:
      return {};
  }
}

function refusalOfGrpc(code: number): Pick<WireError, 'refusal'> {
  switch (code) {
    case 16:
      return { refusal: 'unauthenticated' };
    case 7:
      return { refusal: 'forbidden' };
    case 8:
      return { refusal: 'limited' };
    default:
      return {};
  }
}

/**
 * An HTTP+JSON error answer (spec 11.6: a `google.rpc.Status` under `error`; 0.3 agents also
 * answer a JSON-RPC-like `{ code, message }`).
 */
export function restError(
  version: CheckProtocolVersion,
  status: number,
  mediaType: string,
  text: string,
): WireError {
  const problems: string[] = [];
  const isJson =
    mediaType === 'application/json' || /^application\/[\w.+-]+\+json$/.test(mediaType);
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = undefined;
  }
  const base = {
    binding: 'HTTP+JSON' as const,
    version,
    code: `HTTP ${status}`,
    httpStatus: status,
  };
  if (body === undefined || typeof body !== 'object' || body === null) {
    const what = /^\s*</.test(text)
      ? `an HTML page (${mediaType || 'no content type'})`
      : text.trim() === ''
        ? 'an empty body'
        : `a body that is not JSON (${mediaType || 'no content type'})`;
    problems.push(`the error is ${what}, not a JSON google.rpc.Status`);
    return {
      ...base,
      type: undefined,
      message: undefined,
      details: [],
      ...refusalOfHttp(status),
      formProblems: problems,
    };
  }
  if (!isJson)
    problems.push(`the error body is served as ${mediaType || 'no content type'}, not JSON`);
  const record = body as Record<string, unknown>;
  const inner = record.error;
  if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
    const status_ = inner as Record<string, unknown>;
    const details = Array.isArray(status_.details) ? (status_.details as unknown[]) : [];
    if (status_.details !== undefined && !Array.isArray(status_.details)) {
      problems.push('error.details is not an array');
    }
    if (status_.code !== status) {
      problems.push(`error.code is ${JSON.stringify(status_.code)}, not the HTTP status ${status}`);
    }
    if (typeof status_.status !== 'string')
      problems.push('error.status (the gRPC status name) is missing');
    const reason = reasonOf(details);
    let type = typeOfReason(reason);
    if (type === undefined && details.some(isBadRequestDetail)) type = 'InvalidParamsError';
    return {
      ...base,
      type,
      ...(reason === undefined ? {} : { reason }),
      message: typeof status_.message === 'string' ? status_.message : undefined,
      details,
      ...refusalOfHttp(status),
      formProblems: problems,
    };
  }
  if (typeof record.code === 'number' && typeof record.message === 'string') {
    // The JSON-RPC error object some 0.3 servers answer on HTTP+JSON.
    const read = jsonRpcError(version, record, status);
    if (version === '1.0') {
      problems.push('the error is a JSON-RPC error object, not a google.rpc.Status under "error"');
    }
    return { ...read, ...base, formProblems: [...problems, ...read.formProblems] };
  }
  problems.push('the JSON body has no "error" object (google.rpc.Status)');
  return {
    ...base,
    type: undefined,
    message: undefined,
    details: [],
    ...refusalOfHttp(status),
    formProblems: problems,
  };
}

/** A gRPC status (spec 10.6), with its details as decoded from `grpc-status-details-bin`. */
export function grpcError(
  version: CheckProtocolVersion,
  code: number,
  message: string,
  details: readonly unknown[],
  problems: readonly string[],
): WireError {
  const reason = reasonOf(details);
  let type = typeOfReason(reason);
  if (type === undefined && details.some(isBadRequestDetail)) type = 'InvalidParamsError';
  return {
    binding: 'GRPC',
    version,
    type,
    code: grpcCodeText(code),
    grpcCode: code,
    ...(reason === undefined ? {} : { reason }),
    message,
    details,
    ...refusalOfGrpc(code),
    formProblems: problems,
  };
}

/**
 * The codes an error of `type` may carry on the error's binding: the mapping of spec 5.4 and
 * 9.5, and for 0.3 gRPC also what the official 0.3 SDKs answer (their proto has no A2A codes).
 */
function codeMatches(error: WireError, type: A2AErrorType): boolean {
  switch (error.binding) {
    case 'JSONRPC':
      return error.jsonRpcCode === jsonRpcCodeOf(type);
    case 'HTTP+JSON':
      return error.jsonRpcCode !== undefined
        ? error.jsonRpcCode === jsonRpcCodeOf(type)
        : error.httpStatus === httpStatusOf(type);
    case 'GRPC': {
      if (error.grpcCode === grpcStatusCode(grpcStatusOf(type))) return true;
      if (error.version !== '0.3') return false;
      return (
        error.grpcCode === 12 &&
        (type === 'PushNotificationNotSupportedError' || type === 'UnsupportedOperationError')
      );
    }
  }
}

/**
 * Whether an error is of `type`: its type says so, or it has none and its code is the one of
 * `type` (an HTTP+JSON or gRPC error without ErrorInfo, which `error.error-info` reports).
 */
export function isErrorOfType(error: WireError, type: A2AErrorType): boolean {
  if (error.type !== undefined) return error.type === type;
  return codeMatches(error, type);
}

/** Whether the error's binding code is the one spec 5.4 gives its type. */
export function hasCodeOfType(error: WireError): boolean {
  return error.type === undefined || codeMatches(error, error.type);
}

/** `TaskNotFoundError (-32001)`, `HTTP 400 TASK_NOT_CANCELABLE`, `NOT_FOUND (5)`. */
export function describeError(error: WireError): string {
  const name = error.type ?? error.reason ?? 'an error';
  const message =
    error.message === undefined ? '' : `: ${JSON.stringify(error.message.slice(0, 120))}`;
  return `${name} (${error.code})${message}`;
}

/** The codes an error of `type` has on a binding, for messages: `-32001`, `HTTP 404`... */
export function expectedCodeOf(binding: CheckBindingName, type: A2AErrorType): string {
  switch (binding) {
    case 'JSONRPC':
      return String(jsonRpcCodeOf(type));
    case 'HTTP+JSON':
      return `HTTP ${httpStatusOf(type)}${errorReasonOf(type) === undefined ? '' : ` ${errorReasonOf(type)}`}`;
    case 'GRPC':
      return `${grpcCodeText(grpcStatusCode(grpcStatusOf(type)))}${errorReasonOf(type) === undefined ? '' : ` ${errorReasonOf(type)}`}`;
  }
}
