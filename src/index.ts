/**
 * `tandem`: the A2A 1.0 wire contract — types, validation, errors, the task state machine and
 * version negotiation. The encodings beneath it (SSE, base64, canonical JSON, UUIDs, the proto
 * descriptors) are in `tandem/codecs`. No I/O and no `node:` imports: this entry point runs in
 * any JavaScript runtime.
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */

export type {
  APIKeySecurityScheme,
  AgentCapabilities,
  AgentCard,
  AgentCardSignature,
  AgentExtension,
  AgentInterface,
  AgentProvider,
  AgentSkill,
  Artifact,
  AuthenticationInfo,
  AuthorizationCodeOAuthFlow,
  CancelTaskRequest,
  ClientCredentialsOAuthFlow,
  DeleteTaskPushNotificationConfigRequest,
  DeviceCodeOAuthFlow,
  EnumTypes,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  HTTPAuthSecurityScheme,
  ImplicitOAuthFlow,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  MessageTypes,
  MutualTlsSecurityScheme,
  OAuth2SecurityScheme,
  OAuthFlows,
  OpenIdConnectSecurityScheme,
  Part,
  PartFields,
  PasswordOAuthFlow,
  Role,
  SecurityRequirement,
  SecurityScheme,
  SendMessageConfiguration,
  SendMessageRequest,
  SendMessageResponse,
  ServiceMethods,
  StreamResponse,
  StringList,
  SubscribeToTaskRequest,
  Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
} from './protocol/generated/types.js';
export type { JsonValue, Struct, Timestamp } from './protocol/json.js';

export {
  OPERATION_NAMES,
  isOperationName,
  isStreamingOperation,
  operations,
} from './protocol/operations.js';
export type { OperationName, OperationRequest, OperationResponse } from './protocol/operations.js';

export { parseMessage, parseMessageOrThrow } from './protocol/validation.js';
export type { ParseOptions, ParseResult } from './protocol/validation.js';

export {
  JSON_SCHEMA_DIALECT,
  SCHEMA_TYPE_NAMES,
  isSchemaTypeName,
  jsonSchemaBundle,
  jsonSchemaOf,
} from './protocol/json-schema.js';
export type { JsonSchema, SchemaTypeName } from './protocol/json-schema.js';

export {
  A2A_ERROR_TYPES,
  defaultMessageOf,
  errorReasonOf,
  grpcStatusCode,
  grpcStatusOf,
  httpStatusOf,
  jsonRpcCodeOf,
} from './protocol/error-codes.js';
export type { A2AErrorType, GrpcStatusName } from './protocol/error-codes.js';
export {
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
} from './protocol/errors.js';
export type { A2AErrorOptions } from './protocol/errors.js';
export {
  A2A_ERROR_DOMAIN,
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  badRequest,
  errorInfo,
  isBadRequestDetail,
  isErrorInfoDetail,
} from './protocol/error-details.js';
export type {
  BadRequestDetail,
  ErrorDetail,
  ErrorInfoDetail,
  FieldViolation,
  OtherErrorDetail,
} from './protocol/error-details.js';
export {
  fromHttpErrorBody,
  fromGrpcStatus,
  fromJsonRpcError,
  grpcCodeOf,
  toHttpErrorBody,
  toJsonRpcError,
} from './protocol/error-serialization.js';
export type { HttpErrorBody, JsonRpcErrorObject } from './protocol/error-serialization.js';
export {
  ConfigurationError,
  InvalidTransitionError,
  LocalError,
  UsageError,
  isLocalError,
} from './protocol/local-errors.js';

export {
  INTERRUPTED_STATES,
  TERMINAL_STATES,
  assertTransition,
  canTransition,
  isFinalOrInterruptedState,
  isInterruptedState,
  isTerminalState,
} from './protocol/task-state.js';

export {
  CURRENT_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSION,
  VERSION_HEADER,
  parseProtocolVersion,
} from './protocol/version.js';
export type { ProtocolVersion } from './protocol/version.js';

export {
  agentMessage,
  dataPart,
  fileBytesPart,
  fileUrlPart,
  newArtifact,
  nowTimestamp,
  textPart,
  userMessage,
} from './protocol/builders.js';
export type {
  ArtifactOptions,
  MessageContent,
  MessageOptions,
  PartOptions,
} from './protocol/builders.js';

/** The closest known word to a mistyped one, for did-you-mean hints in configuration errors. */
export { closestMatch } from './protocol/closest-match.js';
