/**
 * `tandem serve --preferred-binding <JSONRPC|HTTP+JSON|GRPC>` (env `TANDEM_PREFERRED_BINDING`):
 * the binding every agent card lists first in `supportedInterfaces`, which clients that take the
 * first interface they support then use (spec 8.3). The default order is JSON-RPC, HTTP+JSON,
 * then gRPC. Only an enabled binding can be preferred: gRPC needs `--grpc-port`.
 */

import { UsageFailure } from '../cli-values.js';

/** The `parseArgs` options this module reads. */
export const PREFERRED_BINDING_OPTIONS = {
  'preferred-binding': { type: 'string' },
} as const;

/** The help lines of {@link PREFERRED_BINDING_OPTIONS}. */
export const PREFERRED_BINDING_HELP = `  --preferred-binding <b> The binding cards list first: JSONRPC | HTTP+JSON | GRPC (env
                          TANDEM_PREFERRED_BINDING; default JSON-RPC, then HTTP+JSON, then gRPC;
                          GRPC needs --grpc-port)`;

/** The standard bindings, as `AgentInterface.protocolBinding` names them. */
const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

/**
 * The preferred `protocolBinding`, or `undefined` for the default order.
 *
 * @param grpc whether gRPC is served (`--grpc-port`).
 * @throws UsageFailure for a name that is no binding, or a binding that is not served.
 */
export function parsePreferredBinding(
  values: { readonly 'preferred-binding'?: unknown },
  grpc: boolean,
): string | undefined {
  const flag = values['preferred-binding'];
  const raw = typeof flag === 'string' ? flag : process.env.TANDEM_PREFERRED_BINDING;
  if (raw === undefined || raw === '') return undefined;
  const binding = BINDINGS.find((name) => name === raw.toUpperCase());
  if (binding === undefined) {
    throw new UsageFailure(
      `--preferred-binding must be one of ${BINDINGS.join(', ')}, got ${JSON.stringify(raw)}`,
    );
  }
  if (binding === 'GRPC' && !grpc) {
    throw new UsageFailure(
      '--preferred-binding GRPC needs gRPC to be served: add --grpc-port <n> (or TANDEM_GRPC_PORT)',
    );
  }
  return binding;
}
