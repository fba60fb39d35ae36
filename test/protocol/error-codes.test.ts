import { describe, it, expect } from 'vitest';
import {
  A2A_ERROR_TYPES,
  defaultMessageOf,
  errorReasonOf,
  grpcStatusCode,
  grpcStatusOf,
  httpStatusOf,
  jsonRpcCodeOf,
  type A2AErrorType,
  type GrpcStatusName,
} from '../../src/protocol/error-codes.js';

/**
 * The mapping written out from the spec, not derived from the code under test.
 *
 * - A2A-specific errors: spec 5.4 (JSON-RPC code, gRPC status, HTTP status) and 10.6 / 11.6 (the
 *   `ErrorInfo.reason` is the type in UPPER_SNAKE_CASE without the `Error` suffix).
 * - JSON-RPC standard errors: spec 9.5 gives the codes and messages. Their HTTP and gRPC statuses
 *   follow the categories of spec 3.3.2 (validation errors: 400 / INVALID_ARGUMENT; system errors:
 *   500 / INTERNAL). An unknown method is gRPC's own UNIMPLEMENTED, and 404 on HTTP. They carry no
 *   ErrorInfo: 10.6 and 11.6 require one only for A2A-specific errors.
 * - The numeric gRPC codes are those of `google.rpc.Code`.
 */
const EXPECTED: readonly [
  type: A2AErrorType,
  jsonRpcCode: number,
  httpStatus: number,
  grpcStatus: GrpcStatusName,
  grpcCode: number,
  reason: string | undefined,
][] = [
  ['TaskNotFoundError', -32001, 404, 'NOT_FOUND', 5, 'TASK_NOT_FOUND'],
  ['TaskNotCancelableError', -32002, 400, 'FAILED_PRECONDITION', 9, 'TASK_NOT_CANCELABLE'],
  [
    'PushNotificationNotSupportedError',
    -32003,
    400,
    'FAILED_PRECONDITION',
    9,
    'PUSH_NOTIFICATION_NOT_SUPPORTED',
  ],
  ['UnsupportedOperationError', -32004, 400, 'FAILED_PRECONDITION', 9, 'UNSUPPORTED_OPERATION'],
  [
    'ContentTypeNotSupportedError',
    -32005,
    400,
    'INVALID_ARGUMENT',
    3,
    'CONTENT_TYPE_NOT_SUPPORTED',
  ],
  ['InvalidAgentResponseError', -32006, 500, 'INTERNAL', 13, 'INVALID_AGENT_RESPONSE'],
  [
    'ExtendedAgentCardNotConfiguredError',
    -32007,
    400,
    'FAILED_PRECONDITION',
    9,
    'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  ],
  [
    'ExtensionSupportRequiredError',
    -32008,
    400,
    'FAILED_PRECONDITION',
    9,
    'EXTENSION_SUPPORT_REQUIRED',
  ],
  ['VersionNotSupportedError', -32009, 400, 'FAILED_PRECONDITION', 9, 'VERSION_NOT_SUPPORTED'],
  ['JsonParseError', -32700, 400, 'INVALID_ARGUMENT', 3, undefined],
  ['InvalidRequestError', -32600, 400, 'INVALID_ARGUMENT', 3, undefined],
  ['MethodNotFoundError', -32601, 404, 'UNIMPLEMENTED', 12, undefined],
  ['InvalidParamsError', -32602, 400, 'INVALID_ARGUMENT', 3, undefined],
  ['InternalError', -32603, 500, 'INTERNAL', 13, undefined],
];

/** The "Standard Message" column of spec 9.5. */
const STANDARD_MESSAGES: readonly [A2AErrorType, string][] = [
  ['JsonParseError', 'Invalid JSON payload'],
  ['InvalidRequestError', 'Request payload validation error'],
  ['MethodNotFoundError', 'Method not found'],
  ['InvalidParamsError', 'Invalid parameters'],
  ['InternalError', 'Internal error'],
];

const A2A_SPECIFIC = EXPECTED.filter(([, code]) => code >= -32099 && code <= -32001);
const JSON_RPC_STANDARD = EXPECTED.filter(([, code]) => code < -32099);

describe('A2A_ERROR_TYPES', () => {
  it('lists all 14 wire error types, each once', () => {
    expect(A2A_ERROR_TYPES).toHaveLength(14);
    expect(new Set(A2A_ERROR_TYPES).size).toBe(14);
    expect([...A2A_ERROR_TYPES].sort()).toEqual(EXPECTED.map(([type]) => type).sort());
  });

  it('has the 9 A2A-specific errors of spec 3.3.2 and the 5 JSON-RPC standard errors of 9.5', () => {
    expect(A2A_SPECIFIC).toHaveLength(9);
    expect(JSON_RPC_STANDARD).toHaveLength(5);
  });
});

describe.each(EXPECTED)('%s', (type, jsonRpcCode, httpStatus, grpcStatus, grpcCode, reason) => {
  it(`has JSON-RPC code ${jsonRpcCode}`, () => {
    expect(jsonRpcCodeOf(type)).toBe(jsonRpcCode);
  });

  it(`has HTTP status ${httpStatus}`, () => {
    expect(httpStatusOf(type)).toBe(httpStatus);
  });

  it(`has gRPC status ${grpcStatus} (${grpcCode})`, () => {
    expect(grpcStatusOf(type)).toBe(grpcStatus);
    expect(grpcStatusCode(grpcStatusOf(type))).toBe(grpcCode);
  });

  it(`has ErrorInfo reason ${String(reason)}`, () => {
    expect(errorReasonOf(type)).toBe(reason);
  });

  it('has a non-empty default message', () => {
    expect(defaultMessageOf(type).trim()).not.toBe('');
  });
});

describe('codes', () => {
  it('gives every type a distinct JSON-RPC code', () => {
    const codes = A2A_ERROR_TYPES.map(jsonRpcCodeOf);
    expect(new Set(codes).size).toBe(A2A_ERROR_TYPES.length);
  });

  it('gives every A2A-specific type a distinct ErrorInfo reason', () => {
    const reasons = A2A_ERROR_TYPES.map(errorReasonOf).filter((r) => r !== undefined);
    expect(reasons).toHaveLength(9);
    expect(new Set(reasons).size).toBe(9);
  });

  it.each(A2A_SPECIFIC)('puts %s in the A2A range -32001..-32099 (spec 9.5)', (type) => {
    const code = jsonRpcCodeOf(type);
    expect(code).toBeGreaterThanOrEqual(-32099);
    expect(code).toBeLessThanOrEqual(-32001);
  });

  it.each(JSON_RPC_STANDARD)('keeps %s out of the A2A range', (type) => {
    const code = jsonRpcCodeOf(type);
    expect(code < -32099 || code > -32001).toBe(true);
  });

  it.each(A2A_SPECIFIC)(
    'derives the reason of %s from its name (spec 10.6)',
    (type, _code, _http, _grpc, _grpcCode, reason) => {
      const derived = type
        .replace(/Error$/, '')
        .replace(/([a-z])([A-Z])/g, '$1_$2')
        .toUpperCase();
      expect(reason).toBe(derived);
      expect(errorReasonOf(type)).toBe(derived);
    },
  );
});

describe('grpcStatusCode', () => {
  it.each([
    ['INVALID_ARGUMENT', 3],
    ['NOT_FOUND', 5],
    ['FAILED_PRECONDITION', 9],
    ['UNIMPLEMENTED', 12],
    ['INTERNAL', 13],
  ] as const)('maps %s to google.rpc.Code %i', (name, code) => {
    expect(grpcStatusCode(name)).toBe(code);
  });
});

describe('defaultMessageOf', () => {
  it.each(STANDARD_MESSAGES)('uses the standard message of spec 9.5 for %s', (type, message) => {
    expect(defaultMessageOf(type)).toBe(message);
  });

  it('uses "Task not found" for TaskNotFoundError (spec 9.5 example)', () => {
    expect(defaultMessageOf('TaskNotFoundError')).toBe('Task not found');
  });

  it('gives every type a distinct default message', () => {
    const messages = A2A_ERROR_TYPES.map(defaultMessageOf);
    expect(new Set(messages).size).toBe(messages.length);
  });
});
