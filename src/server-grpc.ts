/**
 * `tandem/server/grpc`: the gRPC binding's server (spec 10), an entry point of its own so that
 * `tandem/server` never loads grpc-js. Serve the same request handlers as the HTTP server and list
 * the gRPC interface in their cards:
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
  GrpcAgentMount,
  GrpcCompatService,
  GrpcTlsOptions,
} from './bindings/grpc/grpc-server.js';
export { v03GrpcService } from './bindings/v0_3/v03-grpc-service.js';
export { A2A_SERVICE_NAME } from './bindings/grpc/grpc-codec.js';
