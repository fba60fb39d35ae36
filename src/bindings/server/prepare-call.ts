/**
 * Opening a call, written once for every binding (0.3 doors included): once a binding has
 * decoded its wire format into the operation's raw request, {@link prepareCall}
 * 1. checks the protocol version (`negotiateVersion`, before anything else about the call) —
 *    unless the door fixes it (a 0.3 door, gRPC's 0.3 service),
 * 2. validates the request message (`parseRequest`: every violated field reported),
 * 3. takes the tenant from the request (and, on a port several agents share, the agent it routes
 *    to),
 * 4. reads the resume position of `SubscribeToTask` (`Last-Event-ID`),
 * 5. builds the {@link ServerCall} and negotiates extensions (spec 3.3.4).
 * The binding then invokes the agent's chain (interceptors, then the operation table) with the
 * call, and renders what comes back, or what was thrown (`wireErrorOf`, `refusalOf`).
 */

import { InvalidParamsError } from '../../protocol/errors.js';
import type { AgentInterface } from '../../protocol/generated/types.js';
import {
  operations,
  type OperationName,
  type OperationRequest,
} from '../../protocol/operations.js';
import { parseMessage } from '../../protocol/validation.js';
import type { Principal } from '../../runtime/call-context.js';
import type { AgentEndpoint } from './agent-endpoint.js';
import type { HeaderReader, PeerIdentity } from './http-exchange.js';
import { parseLastEventId } from './last-event-id.js';
import type { ServedAgent, ServerBindingName, ServerCall } from './server-interceptor.js';
import {
  negotiateVersion,
  parseExtensionsHeader,
  readVersionParameter,
} from './service-parameters.js';

/**
 * Where a call comes from, as its binding hands it over. Read lazily: the signal and the peer
 * only when the runtime asks for them (an `HttpRequest` makes both on first access).
 */
export interface CallSource {
  readonly binding: ServerBindingName;
  /** Who is calling, as the identity hook decided. */
  readonly principal: Principal;
  /** The HTTP request headers, or the gRPC metadata. */
  readonly serviceParameters: HeaderReader;
  /** The raw query string without `?` (HTTP; `''` for gRPC), for an `A2A-Version` parameter. */
  readonly query: string;
  /** Fires when the client goes away. */
  readonly signal: AbortSignal;
  readonly peer?: PeerIdentity | undefined;
}

/** The interfaces of the agent a call reached, as the caller reaches them. */
export interface AgentInterfaceSource {
  agentInterfaces(): AgentInterface[];
}

/** The agent a call goes to on a port several agents share, picked by the request's tenant. */
export interface RoutedAgent extends AgentInterfaceSource {
  readonly endpoint: AgentEndpoint;
  /** The tenant of the call context: the request's, unless it only served to pick the agent. */
  readonly tenant: string;
}

/** Picks the agent of a call by its request's `tenant` (`''` for none), on a shared port. */
export interface AgentRouter {
  /** @throws InvalidParamsError naming `tenant` when no agent is served under it. */
  route(tenant: string): RoutedAgent;
}

/** How a door opens its calls where it differs from a 1.0 binding. */
export interface CallOpening {
  /** Where the field paths of violations start (`params` for JSON-RPC). */
  readonly root?: string | undefined;
  /** The version every call of the door is at (a 0.3 door); else `A2A-Version` is negotiated. */
  readonly protocolVersion?: string | undefined;
  /** The older version the door translates from (`'0.3'`), for {@link ServerCall.compatVersion}. */
  readonly compatVersion?: string | undefined;
  /** The requested extensions, when the door reads them elsewhere than `A2A-Extensions`. */
  readonly extensions?: string | null | undefined;
}

/** A call ready to invoke. */
export interface PreparedCall<N extends OperationName> {
  readonly endpoint: AgentEndpoint;
  readonly call: ServerCall;
  readonly request: OperationRequest<N>;
}

const NO_EXTENSIONS: readonly string[] = Object.freeze([]);
const NO_OPENING: CallOpening = Object.freeze({});

/**
 * The call of one request. A class rather than an object literal with getters: V8 gives every
 * literal with its own accessor a new hidden class, which on a hot path costs far more in garbage
 * collection than the lazy signal saves.
 */
class OpenedCall implements ServerCall {
  readonly principal: Principal;
  readonly tenant: string;
  readonly requestedExtensions: readonly string[];
  readonly protocolVersion: string;
  readonly afterSeq: number | undefined;
  readonly binding: ServerBindingName;
  readonly compatVersion: string | undefined;
  readonly agent: ServedAgent;
  readonly serviceParameters: HeaderReader;
  activatedExtensions: readonly string[];
  readonly #source: CallSource;
  readonly #interfaces: AgentInterfaceSource;

  constructor(
    source: CallSource,
    interfaces: AgentInterfaceSource,
    agent: ServedAgent,
    tenant: string,
    protocolVersion: string,
    compatVersion: string | undefined,
    extensions: string | null | undefined,
    afterSeq: number | undefined,
  ) {
    this.principal = source.principal;
    this.tenant = tenant;
    this.requestedExtensions = parseExtensionsHeader(extensions);
    this.protocolVersion = protocolVersion;
    this.afterSeq = afterSeq;
    this.binding = source.binding;
    this.compatVersion = compatVersion;
    this.agent = agent;
    this.serviceParameters = source.serviceParameters;
    this.activatedExtensions = NO_EXTENSIONS;
    this.#source = source;
    this.#interfaces = interfaces;
  }

  /** Created by the transport on first access only. */
  get signal(): AbortSignal {
    return this.#source.signal;
  }

  get peerAddress(): string | undefined {
    return this.#source.peer?.address;
  }

  agentInterfaces(): AgentInterface[] {
    return this.#interfaces.agentInterfaces();
  }
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

function isRouter(target: AgentEndpoint | AgentRouter): target is AgentRouter {
  return typeof (target as Partial<AgentRouter>).route === 'function';
}

/**
 * Opens the call of `operation` with the raw request `raw`, for the agent `target` is (or routes
 * the request's tenant to). `interfaces` gives the agent's interfaces as the caller reaches them,
 * for an extended card; a router's agent gives its own.
 *
 * @throws VersionNotSupportedError, InvalidParamsError (every violated field),
 *   ExtensionSupportRequiredError — or, from a router, whatever it refuses a tenant with.
 */
export function prepareCall<N extends OperationName>(
  target: AgentEndpoint | AgentRouter,
  operation: N,
  raw: unknown,
  source: CallSource & Partial<AgentInterfaceSource>,
  opening: CallOpening = NO_OPENING,
): PreparedCall<N> {
  const headers = source.serviceParameters;
  const protocolVersion =
    opening.protocolVersion ??
    negotiateVersion(
      readVersionParameter(headers, source.query),
      isRouter(target) ? undefined : target.olderVersionHint,
    ).text;
  const request = parseRequest(operation, raw, opening.root);
  const requested = (request as { tenant?: unknown }).tenant;
  let tenant = typeof requested === 'string' ? requested : '';
  let endpoint: AgentEndpoint;
  let interfaces: AgentInterfaceSource;
  if (isRouter(target)) {
    const routed = target.route(tenant);
    endpoint = routed.endpoint;
    tenant = routed.tenant;
    interfaces = routed;
  } else {
    endpoint = target;
    interfaces = source as AgentInterfaceSource;
  }
  const call = new OpenedCall(
    source,
    interfaces,
    endpoint.agent,
    tenant,
    protocolVersion,
    opening.compatVersion,
    opening.extensions === undefined ? headers.get('a2a-extensions') : opening.extensions,
    operation === 'SubscribeToTask' ? parseLastEventId(headers.get('last-event-id')) : undefined,
  );
  call.activatedExtensions = endpoint.handler.negotiateExtensions(call);
  return { endpoint, call, request };
}

/**
 * Opens the call of a route that is not one of the operations (Tandem's push delivery status),
 * which has no request message: the version, the tenant the route names, the extensions.
 *
 * @throws VersionNotSupportedError, ExtensionSupportRequiredError.
 */
export function openRouteCall(
  endpoint: AgentEndpoint,
  source: CallSource & AgentInterfaceSource,
  tenant: string,
): ServerCall {
  const headers = source.serviceParameters;
  const call = new OpenedCall(
    source,
    source,
    endpoint.agent,
    tenant,
    negotiateVersion(readVersionParameter(headers, source.query), endpoint.olderVersionHint).text,
    undefined,
    headers.get('a2a-extensions'),
    undefined,
  );
  call.activatedExtensions = endpoint.handler.negotiateExtensions(call);
  return call;
}
