/**
 * The bindings the behaviour suite runs over, and how a test reaches an agent over one: the
 * agent card names the interface URL of each binding (`supportedInterfaces`), and the binding's
 * driver speaks to it.
 */

import type { AgentCard, AgentInterface } from '../../../src/index.js';
import type { A2ADriver, BindingName } from './a2a-driver.js';
import { fetchOf, type DriverConnection } from './connection.js';
import { GrpcDriver } from './grpc-driver.js';
import { JsonRpcDriver } from './json-rpc-driver.js';
import { RestDriver } from './rest-driver.js';

/** The bindings every behaviour test runs over. */
export const BINDINGS: readonly BindingName[] = ['jsonrpc', 'rest', 'grpc'];

/** The `protocolBinding` of each binding in agent cards (spec 5.8). */
export const PROTOCOL_BINDINGS: Readonly<Record<BindingName, string>> = {
  jsonrpc: 'JSONRPC',
  rest: 'HTTP+JSON',
  grpc: 'GRPC',
};

/**
 * The driver of `binding` for the interface at `url`, its calls carrying `connection`'s
 * credentials and TLS. A `tenant` (the interface's, from the card) goes with every request that
 * names none, as clients do (spec 4.4.6); the HTTP bindings' URLs already hold it.
 */
export function createDriver(
  binding: BindingName,
  url: string,
  connection: DriverConnection = {},
  tenant?: string,
): A2ADriver {
  switch (binding) {
    case 'jsonrpc':
      return new JsonRpcDriver(url, connection);
    case 'rest':
      return new RestDriver(url, connection);
    case 'grpc':
      return new GrpcDriver(url, connection, tenant);
  }
}

/** The URL of the `binding` interface an agent card lists. */
export function interfaceUrlOf(card: AgentCard, binding: BindingName): string {
  return interfaceOf(card, binding).url;
}

/** The `binding` interface an agent card lists. */
export function interfaceOf(card: AgentCard, binding: BindingName): AgentInterface {
  const found = card.supportedInterfaces.find(
    (item) => item.protocolBinding === PROTOCOL_BINDINGS[binding],
  );
  if (found === undefined) {
    throw new Error(
      `The card of ${card.name} lists no ${PROTOCOL_BINDINGS[binding]} interface ` +
        `(it lists ${card.supportedInterfaces.map((i) => i.protocolBinding).join(', ')})`,
    );
  }
  return found;
}

/** Reads the public card of the agent at `agentUrl` (its mount point). */
export async function fetchCard(
  agentUrl: string,
  connection: DriverConnection = {},
): Promise<AgentCard> {
  // Only the TLS of the connection: the card is public, credentials go to the interface alone.
  const get = fetchOf(connection.tls === undefined ? {} : { tls: connection.tls });
  const response = await get(`${agentUrl}/.well-known/agent-card.json`);
  if (!response.ok) {
    throw new Error(`No agent card at ${agentUrl}: HTTP ${response.status}`);
  }
  return (await response.json()) as AgentCard;
}

/** The driver of `binding` for the agent at `agentUrl`, found through its card. */
export async function connectDriver(
  binding: BindingName,
  agentUrl: string,
  connection: DriverConnection = {},
): Promise<A2ADriver> {
  const found = interfaceOf(await fetchCard(agentUrl, connection), binding);
  return createDriver(binding, found.url, connection, found.tenant);
}

/** The bindings carried by HTTP, whose refusals have an HTTP status and `WWW-Authenticate`. */
const HTTP_BINDINGS: ReadonlySet<string> = new Set(['jsonrpc', 'rest']);

/** Whether `binding` is carried by HTTP (gRPC is not, though it runs over HTTP/2). */
export function isHttpBinding(binding: BindingName): boolean {
  return HTTP_BINDINGS.has(binding);
}
