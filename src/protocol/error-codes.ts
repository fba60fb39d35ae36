/**
 * The code of every wire error on every binding, as exhaustive switches over
 * {@link A2AErrorType}: spec 5.4 for the A2A-specific errors and 9.5 for the JSON-RPC standard
 * errors. Adding an error type fails compilation until each mapping handles it.
 */

/** The name of every error that can cross the wire. */
export type A2AErrorType =
  | 'TaskNotFoundError'
  | 'TaskNotCancelableError'
  | 'PushNotificationNotSupportedError'
  | 'UnsupportedOperationError'
  | 'ContentTypeNotSupportedError'
  | 'InvalidAgentResponseError'
  | 'ExtendedAgentCardNotConfiguredError'
  | 'ExtensionSupportRequiredError'
  | 'VersionNotSupportedError'
  | 'JsonParseError'
  | 'InvalidRequestError'
  | 'MethodNotFoundError'
  | 'InvalidParamsError'
  | 'InternalError';

/** The gRPC status codes that A2A errors map to, by their canonical names. */
export type GrpcStatusName =
  'INVALID_ARGUMENT' | 'NOT_FOUND' | 'FAILED_PRECONDITION' | 'UNIMPLEMENTED' | 'INTERNAL';

/** The numeric value of each {@link GrpcStatusName} (google.rpc.Code). */
export function grpcStatusCode(name: GrpcStatusName): number {
  switch (name) {
    case 'INVALID_ARGUMENT':
      return 3;
    case 'NOT_FOUND':
      return 5;
    case 'FAILED_PRECONDITION':
      return 9;
    case 'UNIMPLEMENTED':
      return 12;
    case 'INTERNAL':
      return 13;
  }
}

/** The JSON-RPC `error.code` of an error type (spec 5.4 and 9.5). */
export function jsonRpcCodeOf(type: A2AErrorType): number {
  switch (type) {
    case 'TaskNotFoundError':
      return -32001;
    case 'TaskNotCancelableError':
      return -32002;
    case 'PushNotificationNotSupportedError':
      return -32003;
    case 'UnsupportedOperationError':
      return -32004;
    case 'ContentTypeNotSupportedError':
      return -32005;
    case 'InvalidAgentResponseError':
      return -32006;
    case 'ExtendedAgentCardNotConfiguredError':
      return -32007;
    case 'ExtensionSupportRequiredError':
      return -32008;
    case 'VersionNotSupportedError':
      return -32009;
    case 'JsonParseError':
      return -32700;
    case 'InvalidRequestError':
      return -32600;
    case 'MethodNotFoundError':
      return -32601;
    case 'InvalidParamsError':
      return -32602;
    case 'InternalError':
      return -32603;
  }
}

/** The HTTP status of an error type on the HTTP+JSON binding (spec 5.4 and 11.6). */
export function httpStatusOf(type: A2AErrorType): number {
  switch (type) {
    case 'TaskNotFoundError':
    case 'MethodNotFoundError':
      return 404;
    case 'TaskNotCancelableError':
    case 'PushNotificationNotSupportedError':
    case 'UnsupportedOperationError':
    case 'ContentTypeNotSupportedError':
    case 'ExtendedAgentCardNotConfiguredError':
    case 'ExtensionSupportRequiredError':
    case 'VersionNotSupportedError':
    case 'JsonParseError':
    case 'InvalidRequestError':
    case 'InvalidParamsError':
      return 400;
    case 'InvalidAgentResponseError':
    case 'InternalError':
      return 500;
  }
}

/** The gRPC status of an error type (spec 5.4 and 10.6). */
export function grpcStatusOf(type: A2AErrorType): GrpcStatusName {
  switch (type) {
    case 'TaskNotFoundError':
      return 'NOT_FOUND';
    case 'TaskNotCancelableError':
    case 'PushNotificationNotSupportedError':
    case 'UnsupportedOperationError':
    case 'ExtendedAgentCardNotConfiguredError':
    case 'ExtensionSupportRequiredError':
    case 'VersionNotSupportedError':
      return 'FAILED_PRECONDITION';
    case 'ContentTypeNotSupportedError':
    case 'JsonParseError':
    case 'InvalidRequestError':
    case 'InvalidParamsError':
      return 'INVALID_ARGUMENT';
    case 'MethodNotFoundError':
      return 'UNIMPLEMENTED';
    case 'InvalidAgentResponseError':
    case 'InternalError':
      return 'INTERNAL';
  }
}

/**
 * The `ErrorInfo.reason` of an A2A-specific error (spec 10.6: the type in UPPER_SNAKE_CASE without
 * the `Error` suffix). The JSON-RPC standard errors have none.
 */
export function errorReasonOf(type: A2AErrorType): string | undefined {
  switch (type) {
    case 'TaskNotFoundError':
      return 'TASK_NOT_FOUND';
    case 'TaskNotCancelableError':
      return 'TASK_NOT_CANCELABLE';
    case 'PushNotificationNotSupportedError':
      return 'PUSH_NOTIFICATION_NOT_SUPPORTED';
    case 'UnsupportedOperationError':
      return 'UNSUPPORTED_OPERATION';
    case 'ContentTypeNotSupportedError':
      return 'CONTENT_TYPE_NOT_SUPPORTED';
    case 'InvalidAgentResponseError':
      return 'INVALID_AGENT_RESPONSE';
    case 'ExtendedAgentCardNotConfiguredError':
      return 'EXTENDED_AGENT_CARD_NOT_CONFIGURED';
    case 'ExtensionSupportRequiredError':
      return 'EXTENSION_SUPPORT_REQUIRED';
    case 'VersionNotSupportedError':
      return 'VERSION_NOT_SUPPORTED';
    case 'JsonParseError':
    case 'InvalidRequestError':
    case 'MethodNotFoundError':
    case 'InvalidParamsError':
    case 'InternalError':
      return undefined;
  }
}

/** The message used when an error is created without one (spec 9.5 for the standard errors). */
export function defaultMessageOf(type: A2AErrorType): string {
  switch (type) {
    case 'TaskNotFoundError':
      return 'Task not found';
    case 'TaskNotCancelableError':
      return 'Task cannot be canceled';
    case 'PushNotificationNotSupportedError':
      return 'Push notifications are not supported by this agent';
    case 'UnsupportedOperationError':
      return 'This operation is not supported';
    case 'ContentTypeNotSupportedError':
      return 'Content type not supported';
    case 'InvalidAgentResponseError':
      return 'The agent returned an invalid response';
    case 'ExtendedAgentCardNotConfiguredError':
      return 'The extended agent card is not configured';
    case 'ExtensionSupportRequiredError':
      return 'A required extension was not declared by the client';
    case 'VersionNotSupportedError':
      return 'A2A protocol version not supported';
    case 'JsonParseError':
      return 'Invalid JSON payload';
    case 'InvalidRequestError':
      return 'Request payload validation error';
    case 'MethodNotFoundError':
      return 'Method not found';
    case 'InvalidParamsError':
      return 'Invalid parameters';
    case 'InternalError':
      return 'Internal error';
  }
}

/** Every wire error type, in the order of spec 5.4 then 9.5. */
export const A2A_ERROR_TYPES: readonly A2AErrorType[] = [
  'TaskNotFoundError',
  'TaskNotCancelableError',
  'PushNotificationNotSupportedError',
  'UnsupportedOperationError',
  'ContentTypeNotSupportedError',
  'InvalidAgentResponseError',
  'ExtendedAgentCardNotConfiguredError',
  'ExtensionSupportRequiredError',
  'VersionNotSupportedError',
  'JsonParseError',
  'InvalidRequestError',
  'MethodNotFoundError',
  'InvalidParamsError',
  'InternalError',
];
