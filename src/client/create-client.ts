/**
 * `createClient`: from an agent's URL to a ready client. It resolves the card (or takes the one
 * given), picks the interface, builds the HTTP pipeline (credentials, interceptors, `fetch`) and
 * the headers every call carries, and hands the interface to its binding's transport. All
 * configuration is checked here, so a mistake fails at creation with a message naming the option.
 */

import {
  HTTP_JSON_BINDING,
  createRestClientTransport,
} from '../bindings/rest/rest-client-transport.js';
import { EXTENSIONS_HEADER } from '../bindings/server/service-parameters.js';
import {
  JSONRPC_BINDING,
  createJsonRpcClientTransport,
} from '../bindings/jsonrpc/jsonrpc-client-transport.js';
import type { AgentCard } from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { integerOption } from '../protocol/integer-option.js';
import { maxEventLengthOf } from '../protocol/sse-decoder.js';
import { maxResponseBytesOf } from '../bindings/transport/transport-http.js';
import { CURRENT_PROTOCOL_VERSION, VERSION_HEADER } from '../protocol/version.js';
import type { A2AClient, ClientOptions } from './a2a-client.js';
import { createCallPipeline, globalFetch } from './call-pipeline.js';
import { agentCardUrl, parseAgentCard, sharedCardResolver } from './card-resolver.js';
import { applyAuth } from './client-auth.js';
import { ClientCore } from './client-core.js';
import type { ClientTransportFactory } from '../bindings/transport/client-transport.js';
import { DEFAULT_BINDINGS, selectInterface } from './interface-selection.js';
import { RemoteAgentClient } from './remote-agent-client.js';
import { resolveRetryPolicy } from './retry-policy.js';

/** Default time limit of a call: 60 s. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Default resume attempts after a stream drops. */
export const DEFAULT_RESUME_ATTEMPTS = 5;

function checkTimeout(value: number | undefined): number {
  const timeoutMs = value ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs >= 0)) {
    throw new ConfigurationError(
      `timeoutMs must be a number >= 0 (0 for no limit); got ${String(value)}`,
    );
  }
  return timeoutMs;
}

function resumeAttemptsOf(option: ClientOptions['resumeStreams']): number {
  if (option === false) return 0;
  if (option === undefined || option === true) return DEFAULT_RESUME_ATTEMPTS;
  return integerOption(
    'resumeStreams.maxAttempts',
    option.maxAttempts ?? DEFAULT_RESUME_ATTEMPTS,
    0,
  );
}

function transportFactories(options: ClientOptions): Map<string, ClientTransportFactory> {
  const factories = new Map<string, ClientTransportFactory>([
    [JSONRPC_BINDING, createJsonRpcClientTransport],
    [HTTP_JSON_BINDING, createRestClientTransport],
  ]);
  for (const [binding, factory] of Object.entries(options.transports ?? {})) {
    factories.set(binding.toUpperCase(), factory);
  }
  return factories;
}

/**
 * Creates a client of the agent at `url`: its base URL (`https://agent.example.com`, the card is
 * then at `/.well-known/agent-card.json` below it) or the URL of its card (ending in `.json` or
 * containing `/.well-known/`).
 *
 * @throws ConfigurationError for invalid options; AgentCardError when the card cannot be fetched
 *   or is invalid; NoCompatibleInterfaceError when no interface fits `options.bindings`.
 */
export async function createClient(url: string, options: ClientOptions = {}): Promise<A2AClient> {
  const timeoutMs = checkTimeout(options.timeoutMs);
  const retry = resolveRetryPolicy(options.retry);
  const resumeAttempts = resumeAttemptsOf(options.resumeStreams);
  const maxEventLength = maxEventLengthOf(options.maxEventLength);
  const maxResponseBytes = maxResponseBytesOf(options.maxResponseBytes);
  const factories = transportFactories(options);
  const fetchFunction = options.fetch ?? globalFetch;
  const interceptors = options.interceptors ?? [];
  const cardUrl = agentCardUrl(url);

  let card: AgentCard;
  if (options.card === undefined) {
    const resolver = options.cardResolver ?? sharedCardResolver;
    const resolveOptions = {
      timeoutMs,
      retry: options.retry ?? {},
      send: createCallPipeline(fetchFunction, interceptors),
      maxResponseBytes,
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    };
    card = (await resolver.resolve(cardUrl, resolveOptions)).card;
  } else {
    card = parseAgentCard(options.card, cardUrl);
  }

  const { agentInterface, factory } = selectInterface(
    card,
    cardUrl,
    options.bindings ?? DEFAULT_BINDINGS,
    factories,
  );
  const auth = applyAuth(options.auth, card);
  const headers = new Headers();
  headers.set(VERSION_HEADER, CURRENT_PROTOCOL_VERSION);
  if (options.extensions !== undefined && options.extensions.length > 0) {
    headers.set(EXTENSIONS_HEADER, options.extensions.join(', '));
  }
  for (const [name, value] of auth.headers) headers.set(name, value);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);

  const before = auth.queryInterceptor === undefined ? [] : [auth.queryInterceptor];
  const send = createCallPipeline(fetchFunction, interceptors, before);
  const transport = factory({ agentInterface, send, maxEventLength, maxResponseBytes });
  const core = new ClientCore({
    transport,
    agentInterface,
    headers,
    timeoutMs,
    retry,
    resumeAttempts,
  });
  return new RemoteAgentClient(card, agentInterface, core);
}
