/**
 * `tandem serve --grpc-port N` (env `TANDEM_GRPC_PORT`): the gRPC binding (spec 10) on a port of
 * its own, beside JSON-RPC and HTTP+JSON on the HTTP port, over the same request handlers and the
 * same identity hook; plaintext, or TLS when the server has `--tls-cert`/`--tls-key` (and mutual
 * TLS with `--tls-ca`). Every agent's card then lists a GRPC interface with a bare `host:port`
 * URL (the host of the card's URL, or of `--public-url`). With several agents, each one's GRPC
 * interface declares a tenant (`agents/<name>`) that routes its calls on the shared port.
 *
 * grpc-js and the protobuf code load only when the flag is given: `tandem serve` without it
 * starts as fast as before.
 */

import type { AgentInterface } from '../index.js';
import type {
  A2AAgentMount,
  A2ATlsOptions,
  CallLimitsOptions,
  FailedAuthenticationLimiter,
  Logger,
  ServerAuthentication,
} from '../server.js';
import type { A2AGrpcServer } from '../server-grpc.js';
import { UsageFailure } from './cli-values.js';

/** The `parseArgs` options this module reads. */
export const GRPC_OPTIONS = {
  'grpc-port': { type: 'string' },
} as const;

/** The help lines of {@link GRPC_OPTIONS}. */
export const GRPC_HELP = `gRPC:
  --grpc-port <n>         Also serve the gRPC binding on this port (env TANDEM_GRPC_PORT; 0: any
                          free port). Plaintext, or TLS with --tls-cert/--tls-key; health checking
                          and server reflection included. Several agents share the port by tenant
                          (agents/<name>, declared in each card)`;

/**
 * The gRPC port asked for, or `undefined` for none.
 *
 * @throws UsageFailure for a value that is no port.
 */
export function parseGrpcPort(values: { readonly 'grpc-port'?: unknown }): number | undefined {
  const flag = values['grpc-port'];
  const raw = typeof flag === 'string' ? flag : process.env.TANDEM_GRPC_PORT;
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    throw new UsageFailure(`--grpc-port must be an integer between 0 and 65535, got ${raw}`);
  }
  return port;
}

/** What `tandem serve` needs of the gRPC server. */
export interface GrpcServing {
  /** The mounts, each with its GRPC interface for the card. */
  readonly mounts: A2AAgentMount[];
  /** Binds the port; resolves with the `host:port` it listens at. */
  listen(): Promise<string>;
  shutdown(deadlineMs: number): Promise<void>;
}

/**
 * Prepares the gRPC server of `mounts`. `cardInterfaces` gives every interface of the agent at a
 * path, for the extended cards answered over gRPC.
 */
export async function prepareGrpc(options: {
  readonly port: number;
  readonly host: string;
  readonly mounts: readonly A2AAgentMount[];
  readonly authenticate: ServerAuthentication | undefined;
  /** The HTTP server's limiter, so that failures count on both ports together. */
  readonly failedAuthentications: FailedAuthenticationLimiter | false | undefined;
  readonly tls: A2ATlsOptions | undefined;
  readonly publicUrl: string | undefined;
  readonly logger: Logger;
  readonly cardInterfaces: (path: string) => () => readonly AgentInterface[];
  /** `--compat 0.3`: serve the 0.3 service (`a2a.v1.A2AService`) beside the 1.0 one. */
  readonly compat?: boolean | undefined;
  readonly limits?: CallLimitsOptions | undefined;
}): Promise<GrpcServing> {
  const { createGrpcServer, v03GrpcService } = await import('../server-grpc.js');
  const publicHost =
    options.publicUrl === undefined ? undefined : new URL(options.publicUrl).hostname;
  const server: A2AGrpcServer = createGrpcServer({
    agents: options.mounts.map((mount) => ({
      path: mount.path,
      handler: mount.handler,
      tenant: mount.tenant,
      cardInterfaces: options.cardInterfaces(mount.path),
    })),
    logger: options.logger,
    limits: options.limits,
    ...(options.authenticate === undefined ? {} : { authenticate: options.authenticate }),
    ...(options.failedAuthentications === undefined
      ? {}
      : { failedAuthentications: options.failedAuthentications }),
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    ...(publicHost === undefined ? {} : { publicHost }),
    ...(options.compat === true ? { compat: v03GrpcService() } : {}),
  });
  return {
    mounts: options.mounts.map((mount) => ({
      ...mount,
      interfaces: server.interfacesOf(mount.path),
    })),
    async listen() {
      const { address } = await server.listen({ port: options.port, host: options.host });
      return address;
    },
    shutdown: (deadlineMs) => server.shutdown({ deadlineMs }),
  };
}
