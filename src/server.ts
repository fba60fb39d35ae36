/**
 * `tandem/server`: serving agents over A2A — the agent author's API, the task runtime, the
 * bindings, authentication and the HTTP and gRPC listeners. The task stores are in `tandem/stores`.
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */

export { defineAgent } from './runtime/agent.js';
export type {
  AgentCardInput,
  AgentContext,
  AgentDefinition,
  AgentExecute,
  ArtifactStream,
  ArtifactStreamOptions,
  ArtifactUpdateOptions,
  Caller,
} from './runtime/agent.js';
export { createRequestHandler } from './compose/create-request-handler.js';
export type { RequestHandlerOptions } from './runtime/runtime-request-handler.js';
export { DEFAULT_CALL_LIMITS, LimitExceededError } from './bindings/server/call-limit-options.js';
export type { CallLimitsOptions, LimitName } from './bindings/server/call-limit-options.js';
export { MAX_TRACKED_CALLERS } from './bindings/server/token-buckets.js';
export type {
  OperationResult,
  ServedAgent,
  ServerBindingName,
  ServerCall,
  ServerCallHandler,
  ServerInterceptor,
  StreamingOperation,
  UnaryOperation,
} from './bindings/server/server-interceptor.js';
export { isEventStream, observeEvents } from './runtime/observed-event-stream.js';
export type { EventObserver, EventStreamEnd } from './runtime/observed-event-stream.js';
export {
  DEFAULT_TASK_CONTENT_LIMITS,
  TaskContentLimitError,
} from './runtime/task-content-limits.js';
export type { TaskContentLimits } from './runtime/task-content-limits.js';
export { adminPolicy } from './runtime/task-access-policy.js';
export type { TaskAccess, TaskAccessPolicy } from './runtime/task-access-policy.js';
export { createTaskRuntime } from './runtime/task-runtime.js';
export { createPushNotifier } from './push/push-notifier.js';
export type {
  PushDeliveryStatus,
  PushNotifier,
  PushNotifierOptions,
} from './push/push-notifier.js';
export type {
  PushDeliveryStatusRequest,
  PushNotifications,
  PushPayloadFormat,
} from './runtime/push-notifications.js';
export type { PushDeliveryStatusSource } from './runtime/push-delivery-status-source.js';
export type { HostResolver } from './push/guarded-lookup.js';
export type { RetryTiming } from './push/retry-timing.js';
export { DELIVERY_ID_HEADER, NOTIFICATION_TOKEN_HEADER } from './protocol/push-headers.js';
export type { TaskRuntime, TaskRuntimeOptions } from './runtime/task-runtime.js';
export type { A2ARequestHandler, EventStream } from './runtime/request-handler.js';
export { ANONYMOUS, createCallContext } from './runtime/call-context.js';
export type { CallContext, Principal } from './runtime/call-context.js';
export { streamEvent } from './runtime/stream-event.js';
export type { StreamEvent } from './runtime/stream-event.js';
export { silentLogger } from './runtime/logger.js';
export type { Logger } from './runtime/logger.js';

// The task stores are in `tandem/stores` (the seam, the memory store, `openTaskStore`) and in
// entry points of their own (`tandem/stores/sqlite`, `tandem/stores/postgres`), so that this one
// never loads a database driver.

export { createA2AServer } from './compose/create-a2a-server.js';
export type {
  A2AServer,
  A2AServerAddress,
  A2AServerOptions,
  GrpcListenerOptions,
  HttpListenerOptions,
} from './compose/create-a2a-server.js';
export type { GrpcOptions } from './bindings/grpc/grpc-options.js';
export type { GrpcTlsOptions } from './bindings/grpc/grpc-credentials.js';
export type { A2AAgentMount, ServerCoreOptions } from './bindings/server/server-options.js';
export { createA2AHandler } from './http/adapters/fetch.js';
export type { A2AFetchHandler } from './http/adapters/fetch.js';
export type {
  A2AHandlerOptions,
  CardSignerLike,
  CorsOrigins,
  HttpOptions,
} from './http/http-options.js';
export { createNodeServer, toNodeListener } from './http/adapters/node.js';
export type {
  A2ANodeServer,
  A2ANodeServerOptions,
  A2ATlsOptions,
  NodeListener,
  NodeServerOptions,
  ShutdownOptions,
} from './http/adapters/node.js';
export { createExpressMiddleware } from './http/adapters/express.js';
export type { A2AExpressMiddleware } from './http/adapters/express.js';
export { createLogger } from './http/logging.js';
export type { CreateLoggerOptions, LogLevel } from './http/logging.js';
export { DEFAULT_RPC_PATH, jsonRpcBinding } from './bindings/jsonrpc/jsonrpc-http.js';
export type { JsonRpcBindingOptions } from './bindings/jsonrpc/jsonrpc-http.js';
export { restBinding } from './bindings/rest/rest-server.js';
export type { RestBindingOptions } from './bindings/rest/rest-server.js';
export type {
  BindingContext,
  BindingReply,
  BindingRequest,
  BindingRoute,
  HttpRefusal,
  RouteMethod,
  ServerBinding,
  ServerBindingFactory,
  StreamReport,
} from './bindings/server/server-binding.js';
export type { CallReport } from './bindings/server/call-report.js';
export type { CompatLayer } from './bindings/server/compat-layer.js';
// compatV03() itself is in `tandem/server/compat`, so that a server without it never loads the
// 0.3 translators.
export { COMPAT_VERSIONS } from './bindings/server/compat-layer.js';
export { AuthenticationError, anonymousAuthenticator } from './bindings/server/authentication.js';
export type {
  AuthenticationRequest,
  Authenticator,
  ServerAuthentication,
} from './bindings/server/authentication.js';
export {
  DEFAULT_FAILED_AUTHENTICATION_LIMIT,
  FailedAuthenticationLimiter,
} from './bindings/server/failed-authentication-limiter.js';
export type {
  FailedAuthenticationLimitOptions,
  FailedAuthenticationsOption,
} from './bindings/server/failed-authentication-limiter.js';
export { anyOf } from './security/server-authentication.js';
export { CredentialList, MIN_SECRET_LENGTH } from './security/credential-list.js';
export type { CredentialSource } from './security/credential-list.js';
export { bearerAuthentication } from './security/bearer-authentication.js';
export { apiKeyAuthentication } from './security/api-key-authentication.js';
export type { ApiKeyLocation, ApiKeyOptions } from './security/api-key-authentication.js';
export { jwtAuthentication } from './security/jwt-authentication.js';
export type { JwtOptions } from './security/jwt-authentication.js';
export { mtlsAuthentication } from './security/mtls-authentication.js';
export { createCardSigner } from './security/card-signer.js';
export type {
  CardSigner,
  CardSignerOptions,
  CardSigningAlgorithm,
} from './security/card-signer.js';
export type {
  HeaderReader,
  HttpRequest,
  HttpResponse,
  PeerCertificate,
  PeerIdentity,
  SseSink,
  SseSource,
} from './bindings/server/http-exchange.js';

export { CURRENT_PROTOCOL_VERSION } from './protocol/version.js';
