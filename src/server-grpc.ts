/**
 * `tandem/server/grpc`: the gRPC binding's server (spec 10) as a listener of its own, for an
 * application that serves gRPC apart from HTTP; an entry point of its own so that `tandem/server`
 * never loads grpc-js. `createA2AServer({ agents, http, grpc })` of `tandem/server` serves both
 * listeners together (and loads grpc-js only when its gRPC listener starts); apart, list each
 * listener's interfaces in the other's mounts:
 *
 * ```ts
 * const grpc = createGrpcServer({ agents: [{ path: '', handler }] });
 * await grpc.listen({ port: 50051, host: '0.0.0.0' });
 * const http = createNodeServer({ agents: [{ path: '', handler, interfaces: grpc.interfacesOf('') }] });
 * ```
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */

export { createGrpcServer } from './bindings/grpc/grpc-server.js';
export type {
  A2AGrpcServer,
  A2AGrpcServerOptions,
  GrpcOptions,
  GrpcTlsOptions,
} from './bindings/grpc/grpc-server.js';
export { A2A_SERVICE_NAME } from './bindings/grpc/grpc-codec.js';
