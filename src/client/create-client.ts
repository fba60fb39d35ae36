/**
 * `createClient`: from an agent's URL to a ready client. It resolves the card (or takes the one
 * given), picks the interface, settles what every call carries (service parameters, credentials,
 * the caller's headers) and hands the interface to its binding's transport, loaded if its factory
 * is lazy, with the caller's interceptors around it. All configuration is checked here, so a
 * mistake fails at creation with a message naming the option.
 */

import type { AgentCard } from '../protocol/generated/types.js';
import { integerOption } from '../protocol/integer-option.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { EXTENSIONS_HEADER, VERSION_HEADER } from '../protocol/extensions-header.js';
import { maxEventLengthOf } from '../protocol/sse-decoder.js';
import { CURRENT_PROTOCOL_VERSION } from '../protocol/version.js';
import type { ClientTls, ClientTransport } from '../bindings/client/client-transport.js';
import { createHttpSend } from '../bindings/client/http-send.js';
import { maxResponseBytesOf } from '../bindings/client/transport-http.js';
import type { A2AClient, ClientOptions } from './a2a-client.js';
import {
  agentCardUrl,
  readAgentCardWithWarnings,
  sharedCardResolver,
  type CardResolveOptions,
} from './card-resolver.js';
import { verifyAgentCard } from './card-verification.js';
import { applyAuth } from './client-auth.js';
import { ClientCore } from './client-core.js';
import { applyInterceptors, misroutedCall, type CallHandler } from './interceptor.js';
import { DEFAULT_BINDINGS, selectInterface } from './interface-selection.js';
import { RemoteAgentClient } from './remote-agent-client.js';
import { resolveRetryPolicy } from './retry-policy.js';
import { telemetryInterceptor } from './telemetry-interceptor.js';
import { openTransport, transportRegistry } from './transport-registry.js';

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

/** `options.tls`, checked: PEM text or bytes, a certificate and its key together. */
function checkTls(tls: ClientOptions['tls']): ClientTls | undefined {
  if (tls === undefined) return undefined;
  for (const name of ['cert', 'key', 'ca'] as const) {
    const value: unknown = tls[name];
    if (value !== undefined && typeof value !== 'string' && !(value instanceof Uint8Array)) {
      throw new ConfigurationError(
        `tls.${name} must be PEM text (a string) or its bytes (a Uint8Array); got ${typeof value}`,
      );
    }
  }
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    throw new ConfigurationError('tls.cert and tls.key go together: give both or neither');
  }
  return tls;
}

/** The end of the interceptor chain: the transport, for the operations it speaks. */
function transportHandler(transport: ClientTransport): CallHandler {
  return (call) => {
    if (call.stream) return transport.stream(call);
    if (call.operation === 'GetAgentCard') return misroutedCall(call, 'the transport');
    return transport.unary(call);
  };
}

/** The call URL: the interface URL with the API key's query parameter, if any. */
function callUrl(interfaceUrl: string, query: readonly [string, string] | undefined): string {
  // A gRPC interface URL is a bare host:port, and gRPC has no query string.
  if (query === undefined || !URL.canParse(interfaceUrl)) return interfaceUrl;
  const url = new URL(interfaceUrl);
  url.searchParams.set(query[0], query[1]);
  return url.toString();
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
  const tls = checkTls(options.tls);
  const transports = transportRegistry(options.transports);
  const interceptors = options.interceptors ?? [];
  const cardUrl = agentCardUrl(url);

  let card: AgentCard;
  let warnings: readonly string[];
  if (options.card === undefined) {
    const resolver = options.cardResolver ?? sharedCardResolver;
    const resolveOptions: CardResolveOptions = {
      timeoutMs,
      retry: options.retry ?? {},
      interceptors,
      maxResponseBytes,
      fetch: options.fetch,
      headers: options.headers,
    };
    const resolved = await resolver.resolve(cardUrl, resolveOptions);
    card = resolved.card;
    warnings = resolved.warnings ?? [];
  } else {
    ({ card, warnings } = await readAgentCardWithWarnings(options.card, cardUrl));
  }
  if (options.verifyCard !== undefined) await verifyAgentCard(card, options.verifyCard, cardUrl);

  const { agentInterface, factory } = selectInterface(
    card,
    cardUrl,
    options.bindings ?? DEFAULT_BINDINGS,
    transports,
  );
  const auth = applyAuth(options.auth, card);
  const headers = new Headers();
  headers.set(VERSION_HEADER, CURRENT_PROTOCOL_VERSION);
  if (options.extensions !== undefined && options.extensions.length > 0) {
    headers.set(EXTENSIONS_HEADER, options.extensions.join(', '));
  }
  for (const [name, value] of auth.headers) headers.set(name, value);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);

  const send = createHttpSend(options.fetch);
  const context = {
    agentInterface,
    cardUrl,
    send,
    maxEventLength,
    maxResponseBytes,
    ...(tls === undefined ? {} : { tls }),
  };
  const transport = await openTransport(factory, context);
  const core = new ClientCore({
    handler: applyInterceptors(
      [
        telemetryInterceptor({ agentInterface, agentName: card.name, agentVersion: card.version }),
        ...interceptors,
      ],
      transportHandler(transport),
    ),
    agentInterface,
    url: callUrl(agentInterface.url, auth.query),
    headers,
    timeoutMs,
    retry,
    resumeAttempts,
  });
  return new RemoteAgentClient({ card, warnings }, agentInterface, core);
}
