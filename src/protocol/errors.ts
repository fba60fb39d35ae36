/**
 * The errors that cross the wire: the A2A error family of spec 3.3.2 and the JSON-RPC standard
 * errors of spec 9.5. Each knows its JSON-RPC code, HTTP status and gRPC status (spec 5.4) and
 * carries optional `google.rpc` details. Errors that are a local matter (bad configuration, API
 * misuse) are {@link LocalError}s instead and never reach a client.
 */

import {
  defaultMessageOf,
  errorReasonOf,
  grpcStatusOf,
  httpStatusOf,
  jsonRpcCodeOf,
  type A2AErrorType,
  type GrpcStatusName,
} from './error-codes.js';
import {
  A2A_ERROR_DOMAIN,
  badRequest,
  errorInfo,
  isBadRequestDetail,
  isErrorInfoDetail,
  type ErrorDetail,
  type FieldViolation,
} from './error-details.js';

/** Options shared by every wire error. */
export interface A2AErrorOptions {
  /** Context for the `ErrorInfo` detail (A2A-specific errors only), e.g. `{ taskId }`. */
  metadata?: { [key: string]: string };
  /** Further detail objects, appended after the `ErrorInfo`. */
  details?: ErrorDetail[];
  /** The underlying cause, for logs; never serialized. */
  cause?: unknown;
}

/**
 * An error that crosses the wire. Subclasses fix the {@link A2AErrorType}; the codes of every
 * binding follow from it. `details` holds the `google.rpc` detail objects sent to the client:
 * for A2A-specific errors an `ErrorInfo` comes first.
 */
export abstract class A2AError extends Error {
  readonly type: A2AErrorType;
  readonly details: ErrorDetail[];

  protected constructor(
    type: A2AErrorType,
    message: string = defaultMessageOf(type),
    options: A2AErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.type = type;
    this.name = type;
    const reason = errorReasonOf(type);
    this.details = reason === undefined ? [] : [errorInfo(reason, options.metadata)];
    if (options.details) this.details.push(...options.details);
  }

  /** The JSON-RPC `error.code`. */
  get code(): number {
    return jsonRpcCodeOf(this.type);
  }

  /** The HTTP status on the HTTP+JSON binding. */
  get httpStatus(): number {
    return httpStatusOf(this.type);
  }

  /** The gRPC status. */
  get grpcStatus(): GrpcStatusName {
    return grpcStatusOf(this.type);
  }

  /** The `ErrorInfo.reason`, for A2A-specific errors. */
  get reason(): string | undefined {
    return errorReasonOf(this.type);
  }

  /** The `ErrorInfo.metadata`, if any. */
  get metadata(): { [key: string]: string } | undefined {
    const reason = this.reason;
    if (reason === undefined) return undefined;
    for (const detail of this.details) {
      if (
        isErrorInfoDetail(detail) &&
        detail.domain === A2A_ERROR_DOMAIN &&
        detail.reason === reason
      ) {
        return detail.metadata;
      }
    }
    return undefined;
  }
}

/** The task does not exist or is not visible to the caller (-32001). */
export class TaskNotFoundError extends A2AError {
  declare readonly type: 'TaskNotFoundError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('TaskNotFoundError', message, options);
  }
}

/** The task is in a state that cannot be canceled, e.g. already terminal (-32002). */
export class TaskNotCancelableError extends A2AError {
  declare readonly type: 'TaskNotCancelableError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('TaskNotCancelableError', message, options);
  }
}

/** The agent does not declare `capabilities.pushNotifications` (-32003). */
export class PushNotificationNotSupportedError extends A2AError {
  declare readonly type: 'PushNotificationNotSupportedError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('PushNotificationNotSupportedError', message, options);
  }
}

/** The operation, or an aspect of it, is not supported in this situation (-32004). */
export class UnsupportedOperationError extends A2AError {
  declare readonly type: 'UnsupportedOperationError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('UnsupportedOperationError', message, options);
  }
}

/** A media type of the request is not supported by the agent or skill (-32005). */
export class ContentTypeNotSupportedError extends A2AError {
  declare readonly type: 'ContentTypeNotSupportedError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('ContentTypeNotSupportedError', message, options);
  }
}

/** The agent answered something that does not conform to the spec (-32006). */
export class InvalidAgentResponseError extends A2AError {
  declare readonly type: 'InvalidAgentResponseError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('InvalidAgentResponseError', message, options);
  }
}

/** The agent declares an extended card but has none configured (-32007). */
export class ExtendedAgentCardNotConfiguredError extends A2AError {
  declare readonly type: 'ExtendedAgentCardNotConfiguredError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('ExtendedAgentCardNotConfiguredError', message, options);
  }
}

/** A `required: true` extension of the card was not declared by the client (-32008). */
export class ExtensionSupportRequiredError extends A2AError {
  declare readonly type: 'ExtensionSupportRequiredError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('ExtensionSupportRequiredError', message, options);
  }
}

/** The requested `A2A-Version` is not served by this interface (-32009). */
export class VersionNotSupportedError extends A2AError {
  declare readonly type: 'VersionNotSupportedError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('VersionNotSupportedError', message, options);
  }
}

/** The request body is not valid JSON (-32700). */
export class JsonParseError extends A2AError {
  declare readonly type: 'JsonParseError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('JsonParseError', message, options);
  }
}

/** The JSON is not a valid request object of the binding (-32600). */
export class InvalidRequestError extends A2AError {
  declare readonly type: 'InvalidRequestError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('InvalidRequestError', message, options);
  }
}

/** The method does not exist on this server (-32601). */
export class MethodNotFoundError extends A2AError {
  declare readonly type: 'MethodNotFoundError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('MethodNotFoundError', message, options);
  }
}

/**
 * The parameters of the method are invalid (-32602). Carries a `BadRequest` detail listing every
 * violated field.
 */
export class InvalidParamsError extends A2AError {
  declare readonly type: 'InvalidParamsError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('InvalidParamsError', message, options);
  }

  /** Builds the error for a failed validation; the message names the first violations. */
  static fromViolations(
    violations: FieldViolation[],
    options?: A2AErrorOptions,
  ): InvalidParamsError {
    const shown = violations
      .slice(0, 3)
      .map((v) => `${v.field}: ${v.description}`)
      .join('; ');
    const more = violations.length > 3 ? ` (and ${violations.length - 3} more)` : '';
    const message =
      violations.length === 0 ? 'Invalid parameters' : `Invalid parameters: ${shown}${more}`;
    return new InvalidParamsError(message, {
      ...options,
      details: [badRequest(violations), ...(options?.details ?? [])],
    });
  }

  /** The violated fields, from the `BadRequest` detail. */
  get violations(): FieldViolation[] {
    return this.details.filter(isBadRequestDetail).flatMap((detail) => detail.fieldViolations);
  }
}

/** An unexpected server fault (-32603). The message sent to clients never holds internals. */
export class InternalError extends A2AError {
  declare readonly type: 'InternalError';
  constructor(message?: string, options?: A2AErrorOptions) {
    super('InternalError', message, options);
  }
}

/** Narrows any value to a wire error. */
export function isA2AError(value: unknown): value is A2AError {
  return value instanceof A2AError;
}

/** Creates the error class of a given type, e.g. when decoding an error from the wire. */
export function createA2AError(
  type: A2AErrorType,
  message?: string,
  options?: A2AErrorOptions,
): A2AError {
  switch (type) {
    case 'TaskNotFoundError':
      return new TaskNotFoundError(message, options);
    case 'TaskNotCancelableError':
      return new TaskNotCancelableError(message, options);
    case 'PushNotificationNotSupportedError':
      return new PushNotificationNotSupportedError(message, options);
    case 'UnsupportedOperationError':
      return new UnsupportedOperationError(message, options);
    case 'ContentTypeNotSupportedError':
      return new ContentTypeNotSupportedError(message, options);
    case 'InvalidAgentResponseError':
      return new InvalidAgentResponseError(message, options);
    case 'ExtendedAgentCardNotConfiguredError':
      return new ExtendedAgentCardNotConfiguredError(message, options);
    case 'ExtensionSupportRequiredError':
      return new ExtensionSupportRequiredError(message, options);
    case 'VersionNotSupportedError':
      return new VersionNotSupportedError(message, options);
    case 'JsonParseError':
      return new JsonParseError(message, options);
    case 'InvalidRequestError':
      return new InvalidRequestError(message, options);
    case 'MethodNotFoundError':
      return new MethodNotFoundError(message, options);
    case 'InvalidParamsError':
      return new InvalidParamsError(message, options);
    case 'InternalError':
      return new InternalError(message, options);
  }
}
