/**
 * `tandem serve --grpc-port N` (env `TANDEM_GRPC_PORT`): the gRPC binding (spec 10) on a port of
 * its own, beside JSON-RPC and HTTP+JSON on the HTTP port, over the same agents, interceptors,
 * limits and identity hook (one `createA2AServer`); plaintext, or TLS when the server has `--tls-cert`/`--tls-key` (and mutual
 * TLS with `--tls-ca`). Every agent's card then lists a GRPC interface with a bare `host:port`
 * URL (the host of the card's URL, or of `--public-url`). With several agents, each one's GRPC
 * interface declares a tenant (`agents/<name>`) that routes its calls on the shared port.
 *
 * grpc-js and the protobuf code load only when the flag is given: `tandem serve` without it
 * starts as fast as before.
 */

import { UsageFailure } from '../cli-values.js';
import type { ServeOptionGroup } from './option-group.js';

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

/** The gRPC flags: the port, or `undefined` for no gRPC listener. */
export const GRPC_GROUP = {
  options: GRPC_OPTIONS,
  help: GRPC_HELP,
  parse: parseGrpcPort,
} satisfies ServeOptionGroup<{ readonly 'grpc-port'?: unknown }, number | undefined>;
