/**
 * `tandem serve --compat 0.3` (env `TANDEM_COMPAT`): serve A2A 0.3 clients beside 1.0 ones —
 * JSON-RPC 0.3 on the JSON-RPC endpoint, HTTP+JSON 0.3 under `/v1/`, gRPC 0.3 beside the 1.0
 * service (when gRPC is served), the card with the 0.3 fields, also at
 * `/.well-known/agent.json` (docs/compat-0.3.md). Off by default: such a card is not a pure 1.0
 * card.
 */

import { COMPAT_VERSIONS, type CompatLayer } from '../../server.js';
import { UsageFailure } from '../cli-values.js';
import type { ServeOptionGroup } from './option-group.js';

/** The `parseArgs` options this module reads. */
export const COMPAT_OPTIONS = {
  compat: { type: 'string' },
} as const;

/** The help lines of {@link COMPAT_OPTIONS}. */
export const COMPAT_HELP = `Compatibility:
  --compat <version>      Also serve clients of an older A2A version: ${COMPAT_VERSIONS.join(', ')}
                          (JSON-RPC on the same endpoint, HTTP+JSON under /v1/, gRPC a2a.v1.A2AService
                          on the gRPC port, card at /.well-known/agent.json too; env TANDEM_COMPAT)`;

/** A version `--compat` accepts. */
export type ServeCompatVersion = (typeof COMPAT_VERSIONS)[number];

/**
 * The compat version asked for; `undefined` for none.
 *
 * @throws UsageFailure for a version without one.
 */
export function parseServeCompat(values: {
  readonly compat?: string | undefined;
}): ServeCompatVersion | undefined {
  const raw = values.compat ?? process.env.TANDEM_COMPAT ?? '';
  const version = raw.trim();
  if (version === '' || version === 'off') return undefined;
  if (version === '0.3' || version === '0.3.0') return '0.3';
  throw new UsageFailure(
    `--compat must be one of ${COMPAT_VERSIONS.join(', ')} (or off), got "${raw}"`,
  );
}

/**
 * The compat layer of `version`. Loaded only when asked for, so that a server without it never
 * parses the 0.3 translators.
 */
export async function loadServeCompat(version: ServeCompatVersion): Promise<CompatLayer> {
  const { compatV03 } = await import('../../server-compat.js');
  switch (version) {
    case '0.3':
      return compatV03();
  }
}

/** The compatibility flag: the version to serve besides 1.0, if any. */
export const COMPAT_GROUP = {
  options: COMPAT_OPTIONS,
  help: COMPAT_HELP,
  parse: parseServeCompat,
} satisfies ServeOptionGroup<
  { readonly compat?: string | undefined },
  ServeCompatVersion | undefined
>;
