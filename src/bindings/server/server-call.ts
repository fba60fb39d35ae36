/**
 * The call pipeline every server binding shares, so that the three doors are one agent (spec 5.1):
 * a binding decodes its wire format and then, for every operation,
 * 1. checks the protocol version ({@link negotiateVersion}, before anything else about the call),
 * 2. validates the request message ({@link parseRequest}),
 * 3. opens the call ({@link openCall}): the call context (principal, tenant, extensions, resume
 *    position, signal) and the extension negotiation of spec 3.3.4,
 * 4. invokes the operation from one typed table ({@link invokeOperation} / {@link openStream}),
 * 5. maps whatever was thrown to the wire error it answers ({@link wireErrorOf}): A2A errors as
 *    they are, anything else as `InternalError`, logged and never described to the client.
 * Only the framing — envelopes, status codes, where the parameters come from — differs per binding.
 */

import {
  InternalError,
  InvalidParamsError,
  isA2AError,
  type A2AError,
} from '../../protocol/errors.js';
import type { AgentCard, AgentInterface } from '../../protocol/generated/types.js';
import type { PeerIdentity } from './http-exchange.js';
import {
  operations,
  type OperationName,
  type OperationRequest,
} from '../../protocol/operations.js';
import { parseMessage } from '../../protocol/validation.js';
import type { CallContext, Principal } from '../../runtime/call-context.js';
import { LimitExceededError } from '../../runtime/call-limit-options.js';
import type { Logger } from '../../runtime/logger.js';
import type { A2ARequestHandler, EventStream } from '../../runtime/request-handler.js';
import type { HttpRefusal } from './server-binding.js';
import { parseExtensionsHeader } from './service-parameters.js';

export { negotiateVersion, readVersionParameter } from './service-parameters.js';

/** The operations that answer with a stream of events. */
export type StreamingOperation = 'SendStreamingMessage' | 'SubscribeToTask';

/** The operations that answer once. */
export type UnaryOperation = Exclude<OperationName, StreamingOperation>;

/** Whether an operation answers with a stream (narrowing). */
export function isStreaming(operation: OperationName): operation is StreamingOperation {
  return operation === 'SendStreamingMessage' || operation === 'SubscribeToTask';
}

/**
 * Validates `input` as the operation's request message (spec 3.3.2: every input is validated
 * before processing). Field paths in violations start at `root` (`params.message.parts[0]` for
 * JSON-RPC, `message.parts[0]` for a REST body).
 *
 * @throws InvalidParamsError with a `BadRequest` detail listing every violated field.
 */
export function parseRequest<N extends OperationName>(
  operation: N,
  input: unknown,
  root?: string,
): OperationRequest<N> {
  const result = parseMessage(
    operations[operation].requestType,
    input,
    root === undefined ? undefined : { root },
  );
  if (!result.success) throw InvalidParamsError.fromViolations(result.violations);
  return result.value;
}

/**
 * Where a call's abort signal and peer come from; read only when the runtime asks for them (an
 * `HttpRequest` is one).
 */
export interface SignalSource {
  readonly signal: AbortSignal;
  readonly peer?: PeerIdentity | undefined;
}

/** What a binding knows about a call once its request is decoded. */
export interface CallInit {
  readonly principal: Principal;
  /** The request's tenant (`''` for none). */
  readonly tenant: string;
  /** The negotiated `Major.Minor` version. */
  readonly protocolVersion: string;
  /** The raw `A2A-Extensions` value. */
  readonly extensions: string | null | undefined;
  /** For `SubscribeToTask`: resume after this event. */
  readonly afterSeq?: number | undefined;
}

/**
 * The call context of one request. A class rather than an object literal with a getter: V8 gives
 * every literal with its own accessor a new hidden class, which on a hot path costs far more in
 * garbage collection than the lazy signal saves.
 */
class ServerCallContext implements CallContext {
  readonly principal: Principal;
  readonly tenant: string;
  readonly requestedExtensions: readonly string[];
  readonly protocolVersion: string;
  readonly afterSeq: number | undefined;
  readonly #signals: SignalSource;

  constructor(init: CallInit, signals: SignalSource) {
    this.principal = init.principal;
    this.tenant = init.tenant;
    this.requestedExtensions = parseExtensionsHeader(init.extensions);
    this.protocolVersion = init.protocolVersion;
    this.afterSeq = init.afterSeq;
    this.#signals = signals;
  }

  /** Created by the transport on first access only. */
  get signal(): AbortSignal {
    return this.#signals.signal;
  }

  get peerAddress(): string | undefined {
    return this.#signals.peer?.address;
  }
}

/** A call ready to invoke, and the extensions to echo in `A2A-Extensions`. */
export interface OpenedCall {
  readonly call: CallContext;
  readonly activatedExtensions: readonly string[];
}

/**
 * Builds the call context and negotiates extensions.
 *
 * @throws ExtensionSupportRequiredError when the agent requires an extension not requested.
 */
export function openCall(
  handler: A2ARequestHandler,
  init: CallInit,
  signals: SignalSource,
): OpenedCall {
  const call = new ServerCallContext(init, signals);
  return { call, activatedExtensions: handler.negotiateExtensions(call) };
}

/** What an operation needs besides the handler: where the agent is served. */
export interface CallEnvironment {
  /** The interfaces to declare in the extended card (they depend on where the agent is mounted). */
  readonly agentInterfaces?: (() => AgentInterface[]) | undefined;
}

type Invoker<N extends UnaryOperation> = (
  handler: A2ARequestHandler,
  call: CallContext,
  request: OperationRequest<N>,
  environment: CallEnvironment,
) => Promise<unknown>;

/** Adds `supportedInterfaces` after `description`, where the proto declares it. */
export function cardWithInterfaces(
  card: Omit<AgentCard, 'supportedInterfaces'>,
  interfaces: AgentInterface[],
): AgentCard {
  const { name, description, ...rest } = card;
  return { name, description, supportedInterfaces: interfaces, ...rest };
}

const EMPTY_RESULT = Object.freeze({});

/** One entry per unary operation: a new operation in the proto fails compilation until wired. */
const invokers: { readonly [N in UnaryOperation]: Invoker<N> } = {
  SendMessage: (handler, call, request) => handler.sendMessage(call, request),
  GetTask: (handler, call, request) => handler.getTask(call, request),
  ListTasks: (handler, call, request) => handler.listTasks(call, request),
  CancelTask: (handler, call, request) => handler.cancelTask(call, request),
  CreateTaskPushNotificationConfig: (handler, call, request) =>
    handler.createTaskPushNotificationConfig(call, request),
  GetTaskPushNotificationConfig: (handler, call, request) =>
    handler.getTaskPushNotificationConfig(call, request),
  ListTaskPushNotificationConfigs: (handler, call, request) =>
    handler.listTaskPushNotificationConfigs(call, request),
  GetExtendedAgentCard: async (handler, call, request, environment) =>
    cardWithInterfaces(
      await handler.getExtendedAgentCard(call, request),
      environment.agentInterfaces?.() ?? [],
    ),
  DeleteTaskPushNotificationConfig: async (handler, call, request) => {
    await handler.deleteTaskPushNotificationConfig(call, request);
    return EMPTY_RESULT;
  },
};

/**
 * Calls the handler method of a unary operation; resolves to its result, as the proto's response
 * message (`{}` for `DeleteTaskPushNotificationConfig`, whose response is `google.protobuf.Empty`).
 */
export function invokeOperation<N extends UnaryOperation>(
  handler: A2ARequestHandler,
  operation: N,
  call: CallContext,
  request: OperationRequest<N>,
  environment: CallEnvironment = {},
): Promise<unknown> {
  return invokers[operation](handler, call, request, environment);
}

/** Calls the handler method of a streaming operation. */
export function openStream<N extends StreamingOperation>(
  handler: A2ARequestHandler,
  operation: N,
  call: CallContext,
  request: OperationRequest<N>,
): Promise<EventStream> {
  return operation === 'SendStreamingMessage'
    ? handler.sendStreamingMessage(call, request as OperationRequest<'SendStreamingMessage'>)
    : handler.subscribeToTask(call, request as OperationRequest<'SubscribeToTask'>);
}

/**
 * The refusal a thrown value stands for, when it is not an error of the operation but a limit the
 * caller hit (`LimitExceededError`): HTTP 429 with `Retry-After`, gRPC `RESOURCE_EXHAUSTED`.
 * Each binding answers it in its own form; `undefined` for anything else.
 */
export function refusalOf(error: unknown): HttpRefusal | undefined {
  return error instanceof LimitExceededError ? limitRefusal(error) : undefined;
}

/** The refusal of a call a limit refused: HTTP 429 with `Retry-After`, `RESOURCE_EXHAUSTED`. */
export function limitRefusal(error: LimitExceededError): HttpRefusal {
  return {
    status: 429,
    code: 'RESOURCE_EXHAUSTED',
    message: error.message,
    headers:
      error.retryAfterSeconds === undefined
        ? {}
        : { 'retry-after': String(error.retryAfterSeconds) },
  };
}

/**
 * The wire error a thrown value is answered with: an A2A error as it is; anything else is a bug or
 * an outage the client must not learn details of — logged with its stack, answered `InternalError`.
 */
export function wireErrorOf(
  error: unknown,
  logger: Logger,
  context: { readonly binding: string; readonly operation?: string | undefined },
): A2AError {
  if (isA2AError(error)) return error;
  logger.error(
    { err: error, binding: context.binding, operation: context.operation },
    'unexpected error while handling a request',
  );
  return new InternalError();
}
