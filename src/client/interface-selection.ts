/**
 * Choosing the interface to talk to (spec 8.3.2): the caller's bindings in order of preference
 * decide first, then the card's own order (its first entry is its preferred one). Interfaces at
 * protocol version 1.0 qualify (`1.0.x` too: a patch part does not affect compatibility, spec
 * 3.6), for bindings this client has a transport for; only when none does, an interface at 0.3
 * for which the client has a 0.3 transport (`legacy-transports.ts`, translating at the edge). A
 * relative interface URL is resolved against the card URL. When nothing fits, the error lists
 * what the card offers and what the caller accepts.
 */

import type { AgentCard, AgentInterface } from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { GRPC_BINDING } from '../protocol/protocol-bindings.js';
import { CURRENT_PROTOCOL_VERSION, parseProtocolVersion } from '../protocol/version.js';
import type { ClientTransportFactory } from '../bindings/client/client-transport.js';
import { AgentCardError, NoCompatibleInterfaceError } from './client-errors.js';
import { LEGACY_PROTOCOL_VERSION, LEGACY_TRANSPORTS } from './legacy-transports.js';
import type { TransportRegistry } from './transport-registry.js';

/** A protocol binding name as written in `AgentInterface.protocolBinding`. */
export type ProtocolBindingName = 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | (string & {});

/** The default preference: JSON-RPC, then HTTP+JSON, then gRPC. */
export const DEFAULT_BINDINGS: readonly ProtocolBindingName[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/** The chosen interface (with an absolute URL) and the transport factory for its binding. */
export interface SelectedInterface {
  readonly agentInterface: AgentInterface;
  readonly factory: ClientTransportFactory;
}

function speaks(agentInterface: AgentInterface, wanted: string): boolean {
  const version = parseProtocolVersion(agentInterface.protocolVersion);
  return version !== undefined && version.text === wanted;
}

function sameBinding(a: string, b: string): boolean {
  return a.toUpperCase() === b.toUpperCase();
}

function describeInterface(agentInterface: AgentInterface): string {
  const tenant = agentInterface.tenant ? ` (tenant ${agentInterface.tenant})` : '';
  return `${agentInterface.protocolBinding} ${agentInterface.protocolVersion} at ${agentInterface.url}${tenant}`;
}

function absoluteUrl(agentInterface: AgentInterface, cardUrl: string): string {
  // gRPC interface URLs are bare `host:port` authorities, not URLs to resolve (`host:` would
  // read as a scheme).
  if (sameBinding(agentInterface.protocolBinding, GRPC_BINDING)) return agentInterface.url;
  try {
    return new URL(agentInterface.url, cardUrl).toString();
  } catch (error) {
    throw new AgentCardError(
      `The agent card at ${cardUrl} declares the interface URL ${JSON.stringify(agentInterface.url)}, ` +
        'which is not a URL',
      [],
      { cause: error },
    );
  }
}

/**
 * Picks the interface.
 *
 * @param transports transports by binding name in upper case.
 * @throws NoCompatibleInterfaceError when no interface fits; ConfigurationError for an empty
 *   preference list.
 */
export function selectInterface(
  card: AgentCard,
  cardUrl: string,
  bindings: readonly ProtocolBindingName[],
  transports: TransportRegistry,
): SelectedInterface {
  if (bindings.length === 0) {
    throw new ConfigurationError('bindings is empty; accept at least one, e.g. ["JSONRPC"]');
  }
  const unimplemented = new Set<string>();
  for (const binding of bindings) {
    const candidate = card.supportedInterfaces.find(
      (i) => sameBinding(i.protocolBinding, binding) && speaks(i, CURRENT_PROTOCOL_VERSION),
    );
    if (candidate === undefined) continue;
    const factory = transports.get(binding.toUpperCase());
    if (factory === undefined) {
      unimplemented.add(binding.toUpperCase());
      continue;
    }
    return { agentInterface: { ...candidate, url: absoluteUrl(candidate, cardUrl) }, factory };
  }
  for (const binding of bindings) {
    const candidate = card.supportedInterfaces.find(
      (i) => sameBinding(i.protocolBinding, binding) && speaks(i, LEGACY_PROTOCOL_VERSION),
    );
    const factory = LEGACY_TRANSPORTS.get(binding.toUpperCase());
    if (candidate === undefined || factory === undefined) continue;
    return { agentInterface: { ...candidate, url: absoluteUrl(candidate, cardUrl) }, factory };
  }
  const offered = card.supportedInterfaces.map(describeInterface).join('; ') || 'no interfaces';
  const missing =
    unimplemented.size > 0
      ? ` This client has no transport for ${[...unimplemented].join(', ')}; pass one in the transports option.`
      : '';
  throw new NoCompatibleInterfaceError(
    `No interface of the agent card at ${cardUrl} fits: the card offers ${offered}; this client ` +
      `accepts ${bindings.join(', ')} at protocol version ${CURRENT_PROTOCOL_VERSION} ` +
      `(JSONRPC, HTTP+JSON and GRPC at ${LEGACY_PROTOCOL_VERSION} too).${missing}`,
  );
}
