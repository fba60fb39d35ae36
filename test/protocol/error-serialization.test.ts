import { describe, it, expect } from 'vitest';
import type { A2AErrorType } from '../../src/protocol/error-codes.js';
import type { ErrorDetail } from '../../src/protocol/error-details.js';
import {
  ContentTypeNotSupportedError,
  InternalError,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  createA2AError,
  type A2AError,
} from '../../src/protocol/errors.js';
import {
  fromHttpErrorBody,
  fromJsonRpcError,
  grpcCodeOf,
  toHttpErrorBody,
  toJsonRpcError,
  type JsonRpcErrorObject,
} from '../../src/protocol/error-serialization.js';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const DOMAIN = 'a2a-protocol.org';

/** Spec 5.4 / 9.5 / 10.6, written out: type, JSON-RPC code, HTTP status, gRPC name and code, reason. */
const TABLE: readonly [A2AErrorType, number, number, string, number, string | undefined][] = [
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

const TYPES = TABLE.map(([type]) => type);

const EXTRA: ErrorDetail = {
  '@type': 'type.googleapis.com/google.rpc.DebugInfo',
  detail: 'upstream timed out',
  stackEntries: ['a', 'b'],
};
const FOREIGN_ERROR_INFO: ErrorDetail = {
  '@type': ERROR_INFO,
  reason: 'RATE_LIMIT_EXCEEDED',
  domain: 'googleapis.com',
  metadata: { quota: 'requests' },
};
const VIOLATION = { field: 'message.parts', description: 'At least one part is required' };
const METADATA = { taskId: 'task-123', timestamp: '2025-11-09T10:30:00.000Z' };

/**
 * An error of each type carrying everything that must survive the wire: a custom message,
 * ErrorInfo metadata (A2A-specific types) and extra details. InvalidParamsError carries the
 * BadRequest detail that validation produces.
 */
function sample(type: A2AErrorType): A2AError {
  if (type === 'InvalidParamsError') {
    return InvalidParamsError.fromViolations([VIOLATION], { details: [EXTRA] });
  }
  return createA2AError(type, `custom ${type} message`, { metadata: METADATA, details: [EXTRA] });
}

/** What crosses the wire: JSON text, parsed back. */
function overTheWire<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function errorInfos(error: A2AError): ErrorDetail[] {
  return error.details.filter((d) => d['@type'] === ERROR_INFO && d.domain === DOMAIN);
}

describe('toJsonRpcError', () => {
  it.each(TABLE)('writes %s with code %i, its message and its details as data', (type, code) => {
    const error = createA2AError(type, 'Something specific happened');
    const object = toJsonRpcError(error);
    expect(object.code).toBe(code);
    expect(object.message).toBe('Something specific happened');
    if (error.details.length === 0) {
      expect(object).toEqual({ code, message: 'Something specific happened' });
      expect('data' in object).toBe(false);
    } else {
      expect(object.data).toEqual(error.details);
    }
  });

  it.each(TABLE.filter((row) => row[5] !== undefined))(
    'puts the ErrorInfo of %s first in data',
    (type, code, _http, _grpc, _grpcCode, reason) => {
      const object = toJsonRpcError(createA2AError(type, 'm', { details: [EXTRA] }));
      expect(object).toEqual({
        code,
        message: 'm',
        data: [{ '@type': ERROR_INFO, reason, domain: DOMAIN }, EXTRA],
      });
    },
  );

  it.each(TABLE.filter((row) => row[5] === undefined))(
    'omits data for %s without details',
    (type) => {
      expect('data' in toJsonRpcError(createA2AError(type))).toBe(false);
    },
  );

  it('matches the InvalidParams example of spec 9.5', () => {
    const error = new InvalidParamsError(undefined, {
      details: [{ '@type': BAD_REQUEST, fieldViolations: [VIOLATION] }],
    });
    expect(overTheWire({ jsonrpc: '2.0', id: 1, error: toJsonRpcError(error) })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'Invalid parameters',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [
              { field: 'message.parts', description: 'At least one part is required' },
            ],
          },
        ],
      },
    });
  });

  it('matches the TaskNotFound example of spec 9.5', () => {
    const error = new TaskNotFoundError(undefined, {
      metadata: { taskId: 'nonexistent-task-id', timestamp: '2025-11-09T10:30:00.000Z' },
    });
    expect(overTheWire({ jsonrpc: '2.0', id: 2, error: toJsonRpcError(error) })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32001,
        message: 'Task not found',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_FOUND',
            domain: 'a2a-protocol.org',
            metadata: {
              taskId: 'nonexistent-task-id',
              timestamp: '2025-11-09T10:30:00.000Z',
            },
          },
        ],
      },
    });
  });
});

describe('toHttpErrorBody', () => {
  it.each(TABLE)(
    'writes %s as a google.rpc.Status with code %i and status %s',
    (type, _code, httpStatus, grpcStatus) => {
      const error = createA2AError(type, 'Something specific happened', { details: [EXTRA] });
      expect(toHttpErrorBody(error)).toEqual({
        error: {
          code: httpStatus,
          status: grpcStatus,
          message: 'Something specific happened',
          details: error.details,
        },
      });
      expect(error.httpStatus).toBe(httpStatus);
    },
  );

  it.each(TABLE)('always writes a details array for %s', (type) => {
    const body = toHttpErrorBody(createA2AError(type));
    expect(Array.isArray(body.error.details)).toBe(true);
  });

  it('matches the example of spec 11.6', () => {
    const error = new TaskNotFoundError(
      'The specified task ID does not exist or is not accessible',
      { metadata: { taskId: 'task-123', timestamp: '2025-11-09T10:30:00.000Z' } },
    );
    expect(error.httpStatus).toBe(404);
    expect(overTheWire(toHttpErrorBody(error))).toEqual({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: 'The specified task ID does not exist or is not accessible',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_FOUND',
            domain: 'a2a-protocol.org',
            metadata: {
              taskId: 'task-123',
              timestamp: '2025-11-09T10:30:00.000Z',
            },
          },
        ],
      },
    });
  });
});

describe('grpcCodeOf', () => {
  it.each(TABLE)(
    'gives %s the numeric gRPC status of spec 5.4',
    (type, _code, _http, _grpc, grpcCode) => {
      expect(grpcCodeOf(createA2AError(type))).toBe(grpcCode);
    },
  );
});

function expectSameError(decoded: A2AError | undefined, original: A2AError): void {
  expect(decoded).toBeDefined();
  expect(decoded?.constructor).toBe(original.constructor);
  expect(decoded?.type).toBe(original.type);
  expect(decoded?.message).toBe(original.message);
  expect(decoded?.reason).toBe(original.reason);
  expect(decoded?.metadata).toEqual(original.metadata);
  expect(decoded?.details).toEqual(original.details);
  if (decoded) expect(errorInfos(decoded)).toHaveLength(original.reason === undefined ? 0 : 1);
}

describe('fromJsonRpcError', () => {
  it.each(TYPES)('round-trips %s with message, reason, metadata and details', (type) => {
    const original = sample(type);
    const decoded = fromJsonRpcError(overTheWire(toJsonRpcError(original)) as JsonRpcErrorObject);
    expectSameError(decoded, original);
  });

  it.each(TYPES)('round-trips %s without options', (type) => {
    const original = createA2AError(type);
    const decoded = fromJsonRpcError(overTheWire(toJsonRpcError(original)) as JsonRpcErrorObject);
    expectSameError(decoded, original);
    expect(decoded?.metadata).toBeUndefined();
  });

  it('keeps the violations of an InvalidParamsError', () => {
    const decoded = fromJsonRpcError(toJsonRpcError(sample('InvalidParamsError')));
    expect(decoded).toBeInstanceOf(InvalidParamsError);
    expect((decoded as InvalidParamsError).violations).toEqual([VIOLATION]);
  });

  it('keeps an ErrorInfo of another domain as an extra detail after the A2A one', () => {
    const decoded = fromJsonRpcError({
      code: -32001,
      message: 'Task not found',
      data: [
        FOREIGN_ERROR_INFO,
        { '@type': ERROR_INFO, reason: 'TASK_NOT_FOUND', domain: DOMAIN, metadata: METADATA },
      ],
    });
    expect(decoded).toBeInstanceOf(TaskNotFoundError);
    expect(decoded?.metadata).toEqual(METADATA);
    expect(decoded?.details).toEqual([
      { '@type': ERROR_INFO, reason: 'TASK_NOT_FOUND', domain: DOMAIN, metadata: METADATA },
      FOREIGN_ERROR_INFO,
    ]);
  });

  it('decodes an A2A code sent without data', () => {
    const decoded = fromJsonRpcError({ code: -32002, message: 'Task is completed' });
    expect(decoded).toBeInstanceOf(TaskNotCancelableError);
    expect(decoded?.message).toBe('Task is completed');
    expect(decoded?.details).toEqual([
      { '@type': ERROR_INFO, reason: 'TASK_NOT_CANCELABLE', domain: DOMAIN },
    ]);
  });

  it.each([-32000, -32010, -32099, -32604, -32500, 0, 1, 404, -1])(
    'returns undefined for the unknown code %i',
    (code) => {
      expect(fromJsonRpcError({ code, message: 'x', data: [] })).toBeUndefined();
    },
  );

  it.each([
    ['a string', 'oops'],
    ['an object', { reason: 'TASK_NOT_FOUND' }],
    ['null', null],
    ['entries that are not detail objects', [null, 5, 'x', { noType: true }]],
  ])('ignores data that is %s', (_label, data) => {
    const decoded = fromJsonRpcError({ code: -32603, message: 'Internal error', data });
    expect(decoded).toBeInstanceOf(InternalError);
    expect(decoded?.details).toEqual([]);
  });
});

describe('fromHttpErrorBody', () => {
  // A body identifies its error by the ErrorInfo reason (A2A-specific errors), a BadRequest
  // detail (InvalidParamsError) or the unambiguous status 500 (InternalError).
  const IDENTIFIABLE = TYPES.filter(
    (type) => !['JsonParseError', 'InvalidRequestError', 'MethodNotFoundError'].includes(type),
  );

  it.each(IDENTIFIABLE)('round-trips %s with message, reason, metadata and details', (type) => {
    const original = sample(type);
    const decoded = fromHttpErrorBody(original.httpStatus, overTheWire(toHttpErrorBody(original)));
    expectSameError(decoded, original);
  });

  it.each(TABLE.filter((row) => row[5] !== undefined).map(([type]) => type))(
    'round-trips %s without options',
    (type) => {
      const original = createA2AError(type);
      const decoded = fromHttpErrorBody(original.httpStatus, toHttpErrorBody(original));
      expectSameError(decoded, original);
    },
  );

  it('identifies MethodNotFoundError by its UNIMPLEMENTED status name', () => {
    const original = createA2AError('MethodNotFoundError', 'x');
    expectSameError(fromHttpErrorBody(original.httpStatus, toHttpErrorBody(original)), original);
  });

  // These carry no ErrorInfo (spec 11.6 requires one only for A2A-specific errors) and share
  // their status and status name with other errors, so the body alone does not name them.
  it.each(['JsonParseError', 'InvalidRequestError'] as const)(
    'cannot identify %s from a body without ErrorInfo',
    (type) => {
      const original = createA2AError(type, 'x');
      expect(fromHttpErrorBody(original.httpStatus, toHttpErrorBody(original))).toBeUndefined();
    },
  );

  it('lets the reason, not the shared status 400, decide the type (spec 11.6)', () => {
    const body = (reason: string) => ({
      error: {
        code: 400,
        status: 'FAILED_PRECONDITION',
        message: 'm',
        details: [{ '@type': ERROR_INFO, reason, domain: DOMAIN }],
      },
    });
    expect(fromHttpErrorBody(400, body('TASK_NOT_CANCELABLE'))).toBeInstanceOf(
      TaskNotCancelableError,
    );
    expect(fromHttpErrorBody(400, body('PUSH_NOTIFICATION_NOT_SUPPORTED'))).toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
    expect(fromHttpErrorBody(400, body('CONTENT_TYPE_NOT_SUPPORTED'))).toBeInstanceOf(
      ContentTypeNotSupportedError,
    );
  });

  it('decodes the example of spec 11.6', () => {
    const decoded = fromHttpErrorBody(404, {
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: 'The specified task ID does not exist or is not accessible',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_FOUND',
            domain: 'a2a-protocol.org',
            metadata: { taskId: 'task-123', timestamp: '2025-11-09T10:30:00.000Z' },
          },
        ],
      },
    });
    expect(decoded).toBeInstanceOf(TaskNotFoundError);
    expect(decoded?.message).toBe('The specified task ID does not exist or is not accessible');
    expect(decoded?.metadata).toEqual({
      taskId: 'task-123',
      timestamp: '2025-11-09T10:30:00.000Z',
    });
  });

  it('ignores an ErrorInfo of another domain when choosing the type', () => {
    const decoded = fromHttpErrorBody(404, {
      error: { code: 404, status: 'NOT_FOUND', message: 'm', details: [FOREIGN_ERROR_INFO] },
    });
    expect(decoded).toBeUndefined();
  });

  it('reads a BadRequest detail without ErrorInfo as InvalidParamsError', () => {
    const decoded = fromHttpErrorBody(400, {
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'Invalid request parameters',
        details: [{ '@type': BAD_REQUEST, fieldViolations: [VIOLATION] }],
      },
    });
    expect(decoded).toBeInstanceOf(InvalidParamsError);
    expect(decoded?.message).toBe('Invalid request parameters');
    expect((decoded as InvalidParamsError).violations).toEqual([VIOLATION]);
  });

  it('reads status 500 without ErrorInfo as InternalError', () => {
    const decoded = fromHttpErrorBody(500, {
      error: { code: 500, status: 'INTERNAL', message: 'Database unavailable', details: [] },
    });
    expect(decoded).toBeInstanceOf(InternalError);
    expect(decoded?.message).toBe('Database unavailable');
  });

  it('returns undefined for a 404 without a reason', () => {
    expect(
      fromHttpErrorBody(404, {
        error: { code: 404, status: 'NOT_FOUND', message: 'Not Found', details: [] },
      }),
    ).toBeUndefined();
  });

  it('returns undefined for a 400 without reason or BadRequest', () => {
    expect(
      fromHttpErrorBody(400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'x' } }),
    ).toBeUndefined();
  });

  it('returns undefined for an A2A-domain ErrorInfo with an unknown reason on a 400', () => {
    expect(
      fromHttpErrorBody(400, {
        error: {
          code: 400,
          status: 'FAILED_PRECONDITION',
          message: 'x',
          details: [{ '@type': ERROR_INFO, reason: 'SOMETHING_NEW', domain: DOMAIN }],
        },
      }),
    ).toBeUndefined();
  });

  const GARBAGE: [string, unknown][] = [
    ['null', null],
    ['undefined', undefined],
    ['a string', '<html>Bad Gateway</html>'],
    ['a number', 42],
    ['an array', [1, 2]],
    ['an empty object', {}],
    ['{ error: 5 }', { error: 5 }],
    ['{ error: null }', { error: null }],
    ['{ error: "x" }', { error: 'x' }],
    ['details that are a string', { error: { message: 'm', details: 'nope' } }],
    ['details with non-objects', { error: { message: 7, details: [null, 1, 'x', [], {}] } }],
  ];

  it.each(GARBAGE)('does not throw on %s', (_label, body) => {
    for (const status of [400, 404, 500, 502]) {
      expect(() => fromHttpErrorBody(status, body)).not.toThrow();
    }
    expect(fromHttpErrorBody(404, body)).toBeUndefined();
    expect(fromHttpErrorBody(400, body)).toBeUndefined();
  });

  it('reads a garbage 500 body as an InternalError with the default message', () => {
    const decoded = fromHttpErrorBody(500, '<html>oops</html>');
    expect(decoded).toBeInstanceOf(InternalError);
    expect(decoded?.message).toBe('Internal error');
  });
});
