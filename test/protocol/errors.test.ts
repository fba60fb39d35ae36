import { describe, it, expect } from 'vitest';
import {
  defaultMessageOf,
  errorReasonOf,
  grpcStatusOf,
  httpStatusOf,
  jsonRpcCodeOf,
  type A2AErrorType,
} from '../../src/protocol/error-codes.js';
import type { ErrorDetail, FieldViolation } from '../../src/protocol/error-details.js';
import {
  A2AError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JsonParseError,
  MethodNotFoundError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  createA2AError,
  isA2AError,
  type A2AErrorOptions,
} from '../../src/protocol/errors.js';
import {
  ConfigurationError,
  InvalidTransitionError,
  LocalError,
  UsageError,
  isLocalError,
} from '../../src/protocol/local-errors.js';
import { toHttpErrorBody, toJsonRpcError } from '../../src/protocol/error-serialization.js';

type ErrorClass = new (message?: string, options?: A2AErrorOptions) => A2AError;

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const DOMAIN = 'a2a-protocol.org';

/** Each class with its type and the `ErrorInfo.reason` of spec 10.6 (none for JSON-RPC errors). */
const CLASSES: readonly [A2AErrorType, ErrorClass, string | undefined][] = [
  ['TaskNotFoundError', TaskNotFoundError, 'TASK_NOT_FOUND'],
  ['TaskNotCancelableError', TaskNotCancelableError, 'TASK_NOT_CANCELABLE'],
  [
    'PushNotificationNotSupportedError',
    PushNotificationNotSupportedError,
    'PUSH_NOTIFICATION_NOT_SUPPORTED',
  ],
  ['UnsupportedOperationError', UnsupportedOperationError, 'UNSUPPORTED_OPERATION'],
  ['ContentTypeNotSupportedError', ContentTypeNotSupportedError, 'CONTENT_TYPE_NOT_SUPPORTED'],
  ['InvalidAgentResponseError', InvalidAgentResponseError, 'INVALID_AGENT_RESPONSE'],
  [
    'ExtendedAgentCardNotConfiguredError',
    ExtendedAgentCardNotConfiguredError,
    'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  ],
  ['ExtensionSupportRequiredError', ExtensionSupportRequiredError, 'EXTENSION_SUPPORT_REQUIRED'],
  ['VersionNotSupportedError', VersionNotSupportedError, 'VERSION_NOT_SUPPORTED'],
  ['JsonParseError', JsonParseError, undefined],
  ['InvalidRequestError', InvalidRequestError, undefined],
  ['MethodNotFoundError', MethodNotFoundError, undefined],
  ['InvalidParamsError', InvalidParamsError, undefined],
  ['InternalError', InternalError, undefined],
];

const A2A_SPECIFIC = CLASSES.filter(
  (row): row is [A2AErrorType, ErrorClass, string] => row[2] !== undefined,
);
const JSON_RPC_STANDARD = CLASSES.filter(([, , reason]) => reason === undefined);

const EXTRA: ErrorDetail = {
  '@type': 'type.googleapis.com/google.rpc.DebugInfo',
  detail: 'retry later',
};
const EXTRA_2: ErrorDetail = { '@type': 'type.googleapis.com/google.rpc.Help', links: [] };

describe('the error table', () => {
  it('has one class per wire error type, 9 A2A-specific and 5 JSON-RPC standard', () => {
    expect(CLASSES).toHaveLength(14);
    expect(new Set(CLASSES.map(([type]) => type)).size).toBe(14);
    expect(A2A_SPECIFIC).toHaveLength(9);
    expect(JSON_RPC_STANDARD).toHaveLength(5);
  });
});

describe.each(CLASSES)('%s', (type, ErrorClass, reason) => {
  it('is an Error and an A2AError of its own class', () => {
    const error = new ErrorClass();
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(A2AError);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(isA2AError(error)).toBe(true);
  });

  it('is not an instance of any other error class', () => {
    const error = new ErrorClass();
    for (const [otherType, Other] of CLASSES) {
      if (otherType !== type) expect(error).not.toBeInstanceOf(Other);
    }
  });

  it('has its type as `type` and `name`', () => {
    const error = new ErrorClass();
    expect(error.type).toBe(type);
    expect(error.name).toBe(type);
    expect(String(error)).toBe(`${type}: ${error.message}`);
  });

  it('uses the default message of its type when none is given', () => {
    const error = new ErrorClass();
    expect(error.message).toBe(defaultMessageOf(type));
    expect(error.message).not.toBe('');
  });

  it('keeps a custom message', () => {
    expect(new ErrorClass('Task task-123 was purged').message).toBe('Task task-123 was purged');
    expect(new ErrorClass(undefined, {}).message).toBe(defaultMessageOf(type));
  });

  it('exposes the codes of its type on every binding', () => {
    const error = new ErrorClass();
    expect(error.code).toBe(jsonRpcCodeOf(type));
    expect(error.httpStatus).toBe(httpStatusOf(type));
    expect(error.grpcStatus).toBe(grpcStatusOf(type));
    expect(error.reason).toBe(errorReasonOf(type));
    expect(error.reason).toBe(reason);
  });

  it('keeps the cause for logs but never serializes it', () => {
    const cause = new Error('connection to db://secret-host refused');
    const error = new ErrorClass('Something failed', { cause });
    expect(error.cause).toBe(cause);
    for (const serialized of [
      JSON.stringify(error),
      JSON.stringify(toJsonRpcError(error)),
      JSON.stringify(toHttpErrorBody(error)),
    ]) {
      expect(serialized).not.toContain('secret-host');
      expect(serialized).not.toContain('"cause"');
    }
  });

  it('has no cause property when none is given', () => {
    expect('cause' in new ErrorClass()).toBe(false);
  });

  it('is not a local error', () => {
    const error = new ErrorClass();
    expect(error).not.toBeInstanceOf(LocalError);
    expect(isLocalError(error)).toBe(false);
  });
});

describe.each(A2A_SPECIFIC)('%s details', (_type, ErrorClass, reason) => {
  it('start with an ErrorInfo carrying the reason and the A2A domain', () => {
    const error = new ErrorClass();
    expect(error.details).toEqual([{ '@type': ERROR_INFO, reason, domain: DOMAIN }]);
    expect(error.details[0]).not.toHaveProperty('metadata');
    expect(error.metadata).toBeUndefined();
  });

  it('carry the metadata in the ErrorInfo when given', () => {
    const metadata = { taskId: 'task-123', timestamp: '2025-11-09T10:30:00.000Z' };
    const error = new ErrorClass(undefined, { metadata });
    expect(error.details).toEqual([{ '@type': ERROR_INFO, reason, domain: DOMAIN, metadata }]);
    expect(error.metadata).toEqual(metadata);
  });

  it('leave out an empty metadata map', () => {
    const error = new ErrorClass(undefined, { metadata: {} });
    expect(error.details[0]).not.toHaveProperty('metadata');
  });

  it('append extra details after the ErrorInfo, in order', () => {
    const error = new ErrorClass('x', { metadata: { taskId: 't' }, details: [EXTRA, EXTRA_2] });
    expect(error.details).toEqual([
      { '@type': ERROR_INFO, reason, domain: DOMAIN, metadata: { taskId: 't' } },
      EXTRA,
      EXTRA_2,
    ]);
  });

  it('do not share state between instances', () => {
    const a = new ErrorClass();
    const b = new ErrorClass();
    expect(a.details).not.toBe(b.details);
    expect(a.details[0]).not.toBe(b.details[0]);
  });
});

describe.each(JSON_RPC_STANDARD)('%s details', (_type, ErrorClass) => {
  it('hold no ErrorInfo', () => {
    expect(new ErrorClass().details).toEqual([]);
    expect(new ErrorClass().metadata).toBeUndefined();
    expect(new ErrorClass().reason).toBeUndefined();
  });

  it('hold no ErrorInfo even when metadata is given', () => {
    const error = new ErrorClass(undefined, { metadata: { taskId: 't' } });
    expect(error.details.some((d) => d['@type'] === ERROR_INFO)).toBe(false);
  });

  it('hold exactly the extra details given', () => {
    expect(new ErrorClass('x', { details: [EXTRA, EXTRA_2] }).details).toEqual([EXTRA, EXTRA_2]);
  });
});

describe('InvalidParamsError.fromViolations', () => {
  const violations: FieldViolation[] = [
    { field: 'message.parts', description: 'must contain at least one element' },
    { field: 'message.role', description: 'must be one of ROLE_USER, ROLE_AGENT' },
    { field: 'message.messageId', description: 'must not be empty' },
    { field: 'configuration.historyLength', description: 'must be at least 0' },
    { field: 'metadata', description: 'must be a JSON object' },
  ];

  it('carries a BadRequest detail listing every violation', () => {
    const error = InvalidParamsError.fromViolations(violations);
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect(error.type).toBe('InvalidParamsError');
    expect(error.code).toBe(-32602);
    expect(error.details).toEqual([{ '@type': BAD_REQUEST, fieldViolations: violations }]);
    expect(error.violations).toEqual(violations);
  });

  it('names the first violations in the message and counts the rest', () => {
    const error = InvalidParamsError.fromViolations(violations);
    for (const v of violations.slice(0, 3)) {
      expect(error.message).toContain(v.field);
      expect(error.message).toContain(v.description);
    }
    expect(error.message).not.toContain('metadata: must be a JSON object');
    expect(error.message).toContain('2 more');
  });

  it('names a single violation without counting more', () => {
    const [first] = violations;
    const error = InvalidParamsError.fromViolations([first!]);
    expect(error.message).toContain('message.parts');
    expect(error.message).toContain('must contain at least one element');
    expect(error.message).not.toContain('more');
    expect(error.violations).toEqual([first]);
  });

  it('appends extra details after the BadRequest and keeps the cause', () => {
    const cause = new Error('schema');
    const error = InvalidParamsError.fromViolations(violations, { details: [EXTRA], cause });
    expect(error.details).toEqual([{ '@type': BAD_REQUEST, fieldViolations: violations }, EXTRA]);
    expect(error.cause).toBe(cause);
  });

  it('has no violations when built without a BadRequest', () => {
    expect(new InvalidParamsError().violations).toEqual([]);
    expect(new InvalidParamsError('x', { details: [EXTRA] }).violations).toEqual([]);
  });
});

describe('createA2AError', () => {
  it.each(CLASSES)('builds %s', (type, ErrorClass, reason) => {
    const error = createA2AError(type, 'custom message', {
      metadata: { taskId: 'task-9' },
      details: [EXTRA],
    });
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error.type).toBe(type);
    expect(error.message).toBe('custom message');
    expect(error.details.at(-1)).toEqual(EXTRA);
    if (reason === undefined) {
      expect(error.details).toEqual([EXTRA]);
    } else {
      expect(error.details).toEqual([
        { '@type': ERROR_INFO, reason, domain: DOMAIN, metadata: { taskId: 'task-9' } },
        EXTRA,
      ]);
    }
  });

  it.each(CLASSES)('uses the default message of %s when none is given', (type) => {
    expect(createA2AError(type).message).toBe(defaultMessageOf(type));
  });
});

describe('local errors and wire errors are separate families', () => {
  const locals: [string, LocalError][] = [
    ['LocalError', new LocalError('x')],
    ['ConfigurationError', new ConfigurationError('Set A2A_PORT to a port number')],
    ['UsageError', new UsageError('Client is closed; create a new one')],
    [
      'InvalidTransitionError',
      new InvalidTransitionError('TASK_STATE_FAILED', 'TASK_STATE_WORKING'),
    ],
  ];

  it.each(locals)('%s is a LocalError and not an A2AError', (name, error) => {
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(LocalError);
    expect(error).not.toBeInstanceOf(A2AError);
    expect(isLocalError(error)).toBe(true);
    expect(isA2AError(error)).toBe(false);
    expect(error.name).toBe(name);
  });

  it('keeps the cause of a local error', () => {
    const cause = new Error('ENOENT');
    expect(new ConfigurationError('Missing file', { cause }).cause).toBe(cause);
  });

  it('InvalidTransitionError records both states and names them in its message', () => {
    const error = new InvalidTransitionError('TASK_STATE_FAILED', 'TASK_STATE_WORKING');
    expect(error.from).toBe('TASK_STATE_FAILED');
    expect(error.to).toBe('TASK_STATE_WORKING');
    expect(error.message).toContain('TASK_STATE_FAILED');
    expect(error.message).toContain('TASK_STATE_WORKING');
  });

  it.each([
    ['a plain Error', new Error('x')],
    ['an error-shaped object', { type: 'TaskNotFoundError', code: -32001, message: 'x' }],
    ['null', null],
    ['a string', 'TaskNotFoundError'],
  ])('neither guard accepts %s', (_label, value) => {
    expect(isA2AError(value)).toBe(false);
    expect(isLocalError(value)).toBe(false);
  });
});
