/**
 * The transports of interfaces at an older protocol version (A2A 0.3), used only when an agent
 * offers no 1.0 interface the client can use. They translate at the edge (`bindings/v0_3/`) and
 * are loaded only when a card selects one, so that clients of 1.0 agents never load them.
 */

import type { ClientTransportFactory } from '../bindings/client/client-transport.js';

/** The `Major.Minor` these transports speak. */
export const LEGACY_PROTOCOL_VERSION = '0.3';

/** 0.3 transports by binding name in upper case. */
export const LEGACY_TRANSPORTS: ReadonlyMap<string, ClientTransportFactory> = new Map([
  [
    'JSONRPC',
    (context) =>
      import('../bindings/v0_3/v03-jsonrpc-client-transport.js').then((module) =>
        module.createV03JsonRpcClientTransport(context),
      ),
  ],
  [
    'HTTP+JSON',
    (context) =>
      import('../bindings/v0_3/v03-rest-client-transport.js').then((module) =>
        module.createV03RestClientTransport(context),
      ),
  ],
  // grpc-js and the protobuf code load with it, as for the 1.0 gRPC transport.
  [
    'GRPC',
    (context) =>
      import('../bindings/v0_3/v03-grpc-client-transport.js').then((module) =>
        module.createV03GrpcClientTransport(context),
      ),
  ],
]);
