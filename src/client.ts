/**
 * `tandem/client`: calling A2A 1.0 agents — any agent, not only Tandem's — over JSON-RPC or
 * HTTP+JSON, with card discovery and caching, typed errors, retries and resumable streams.
 *
 * Any new export added here becomes public API. Use named exports, not wildcards. This entry
 * imports no `node:` module: the client runs in browsers and edge runtimes too.
 */

export { createClient, DEFAULT_TIMEOUT_MS } from './client/create-client.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './bindings/client/transport-http.js';
export type {
  A2AClient,
  AgentCardCall,
  AgentCardCallResult,
  CallHandler,
  CallOptions,
  CallResult,
  ClientAuth,
  ClientCall,
  ClientOptions,
  ClientTls,
  Conversation,
  Interceptor,
  MessageInput,
  ProtocolBindingName,
  RetryOptions,
  SendMessageInput,
  SendOptions,
} from './client/a2a-client.js';

export { AGENT_CARD_PATH, agentCardUrl, createCardResolver } from './client/card-resolver.js';
export { verifyAgentCard } from './client/card-verification.js';
export type { CardTrust, CardVerification, PublicJwk } from './client/card-verification.js';
export type {
  CardResolveOptions,
  CardResolver,
  CardResolverOptions,
  ResolvedAgentCard,
} from './client/card-resolver.js';
export { DEFAULT_BINDINGS } from './client/interface-selection.js';

export { artifactsOf, dataOf, filesOf, partsOf, textOf } from './client/readers.js';
export type { FileOutput, PartSource } from './client/readers.js';
export { isTask } from './client/conversation.js';

export type {
  CallParameters,
  ClientTransport,
  ClientTransportContext,
  ClientTransportFactory,
  StreamCall,
  StreamCallResult,
  StreamItem,
  StreamingOperationName,
  UnaryCall,
  UnaryCallResult,
  UnaryOperationName,
  UnaryResult,
} from './bindings/client/client-transport.js';
export type { FetchFunction, HttpSend } from './bindings/client/http-send.js';
export { createJsonRpcClientTransport } from './bindings/jsonrpc/jsonrpc-client-transport.js';
export { createRestClientTransport } from './bindings/rest/rest-client-transport.js';

export {
  AgentCardError,
  CallTimeoutError,
  ConnectionError,
  CustomJsonRpcError,
  HttpStatusError,
  NoCompatibleInterfaceError,
  ProtocolViolationError,
} from './client/client-errors.js';
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
  isA2AError,
} from './protocol/errors.js';
export {
  ConfigurationError,
  LocalError,
  UsageError,
  isLocalError,
} from './protocol/local-errors.js';
export type { FieldViolation } from './protocol/error-details.js';

export type {
  AgentCard,
  AgentInterface,
  Artifact,
  Message,
  Part,
  StreamResponse,
  Task,
  TaskState,
} from './protocol/generated/types.js';
export { CURRENT_PROTOCOL_VERSION } from './protocol/version.js';
export { createPushReceiver, toNodePushListener } from './client/push-receiver.js';
export { getPushDeliveryStatus } from './client/push-delivery-status.js';
export type {
  PushDeliveryStatusOptions,
  PushDeliveryStatusQuery,
} from './client/push-delivery-status.js';
export type { PushDeliveryStatusJson } from './protocol/push-delivery-status-json.js';
export type {
  NodeRequestLike,
  NodeResponseLike,
  PushNotification,
  PushRejection,
  PushReceiverHandler,
  PushReceiverOptions,
} from './client/push-receiver.js';
export { DELIVERY_ID_HEADER, NOTIFICATION_TOKEN_HEADER } from './protocol/push-headers.js';
