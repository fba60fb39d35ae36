/**
 * The transports a client can speak, by binding name (compared case-insensitively, as cards are
 * read). JSON-RPC and HTTP+JSON are small and browser-safe, so they are imported here. gRPC,
 * whose code (grpc-js, the protobuf code) should load only when a card selects it, is registered
 * as an async factory that imports its module, so that `tandem/client` stays importable anywhere,
 * browsers included, without it. `ClientOptions.transports` adds or replaces entries the same way.
 */

import { ConfigurationError, LocalError } from '../protocol/local-errors.js';
import { GRPC_BINDING, HTTP_JSON_BINDING, JSONRPC_BINDING } from '../protocol/protocol-bindings.js';
import { createRestClientTransport } from '../bindings/rest/rest-client-transport.js';
import { createJsonRpcClientTransport } from '../bindings/jsonrpc/jsonrpc-client-transport.js';
import type {
  ClientTransport,
  ClientTransportContext,
  ClientTransportFactory,
} from '../bindings/client/client-transport.js';

/** Transport factories by binding name in upper case. */
export type TransportRegistry = ReadonlyMap<string, ClientTransportFactory>;

/** gRPC, with grpc-js and the protobuf code, loads only when a card selects it. */
const createGrpcClientTransport: ClientTransportFactory = (context) =>
  import('../bindings/grpc/grpc-client-transport.js').then((grpc) =>
    grpc.createGrpcClientTransport(context),
  );

const BUILT_IN: ReadonlyArray<readonly [string, ClientTransportFactory]> = [
  [JSONRPC_BINDING, createJsonRpcClientTransport],
  [HTTP_JSON_BINDING, createRestClientTransport],
  [GRPC_BINDING, createGrpcClientTransport],
];

/**
 * The built-in transports with the caller's added or replacing them.
 *
 * @throws ConfigurationError for an entry that is not a factory.
 */
export function transportRegistry(
  custom: Readonly<Record<string, ClientTransportFactory>> = {},
): TransportRegistry {
  const registry = new Map<string, ClientTransportFactory>(BUILT_IN);
  for (const [binding, factory] of Object.entries(custom)) {
    if (typeof factory !== 'function') {
      throw new ConfigurationError(
        `transports[${JSON.stringify(binding)}] must be a function that creates the transport ` +
          `(a ClientTransportFactory); got ${typeof factory}`,
      );
    }
    registry.set(binding.toUpperCase(), factory);
  }
  return registry;
}

/**
 * Creates (and, for a lazy factory, loads) the transport of the selected interface.
 *
 * @throws ConfigurationError when the factory fails for a reason that is not a local error of its
 *   own (a module that cannot be loaded), or returns something that is not a transport.
 */
export async function openTransport(
  factory: ClientTransportFactory,
  context: ClientTransportContext,
): Promise<ClientTransport> {
  const binding = context.agentInterface.protocolBinding;
  let transport: ClientTransport;
  try {
    transport = await factory(context);
  } catch (error) {
    if (error instanceof LocalError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigurationError(
      `The client transport for the binding ${binding} could not be created: ${reason}`,
      { cause: error },
    );
  }
  const candidate = transport as Partial<ClientTransport> | null | undefined;
  if (typeof candidate?.unary !== 'function' || typeof candidate.stream !== 'function') {
    throw new ConfigurationError(
      `The client transport for the binding ${binding} is not a ClientTransport: it needs the ` +
        'methods unary(call) and stream(call)',
    );
  }
  return transport;
}
