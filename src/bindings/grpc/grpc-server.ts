/**
 * `createGrpcServer`: the gRPC listener (`grpc-listener.ts`) over a server core of its own, for an
 * application that serves gRPC apart from HTTP. `createA2AServer` serves both over one core; to
 * serve them apart, list each one's interfaces in the other's mounts (`interfaces`).
 */

import { ServerCore, type ServerCoreOptions } from '../server/server-options.js';
import { createGrpcListener, type A2AGrpcServer } from './grpc-listener.js';
import { resolveGrpcOptions, type GrpcOptions } from './grpc-options.js';

export type { A2AGrpcServer } from './grpc-listener.js';
export type { GrpcOptions } from './grpc-options.js';
export type { GrpcTlsOptions } from './grpc-credentials.js';

/** Options of {@link createGrpcServer}: the server's core and gRPC's own. */
export interface A2AGrpcServerOptions extends ServerCoreOptions, GrpcOptions {}

/**
 * Creates a gRPC server for `options.agents`; call `listen()` to start it.
 *
 * @throws ConfigurationError for invalid options.
 */
export function createGrpcServer(options: A2AGrpcServerOptions): A2AGrpcServer {
  const core = new ServerCore(options);
  const { server, interfaces } = createGrpcListener(core, resolveGrpcOptions(options));
  core.serveOn(interfaces, 'other');
  core.checkPreferredBinding();
  return server;
}
