/**
 * `tandem serve --trust-proxy <CIDR|hops>` (env `TANDEM_TRUST_PROXY`): the reverse proxies in
 * front of the server, trusted to name their client in `X-Forwarded-For` / `Forwarded`, so that
 * the limits key anonymous callers on the client's address rather than the proxy's (the
 * server's `trustProxy` option; docs/deploy.md).
 */

import type { TrustProxyOption } from '../../server.js';
import { UsageFailure } from '../cli-values.js';
import type { ServeOptionGroup } from './option-group.js';

/** The `parseArgs` options this module reads. */
export const PROXY_OPTIONS = {
  'trust-proxy': { type: 'string' },
} as const;

/** The help lines of {@link PROXY_OPTIONS}. */
export const PROXY_HELP = `Behind a reverse proxy:
  --trust-proxy <list|n>  The proxies trusted to name their client (X-Forwarded-For, Forwarded):
                          CIDR ranges or addresses, comma-separated (loopback: 127.0.0.0/8 and
                          ::1), or the number of proxy hops; the limits then key anonymous callers
                          on the client's address (env TANDEM_TRUST_PROXY; default: none)`;

/** An entry that may be an address or CIDR range; the server checks it fully when it starts. */
const RANGE = /^(?:loopback|[0-9.]+(?:\/\d{1,2})?|\[?[0-9a-f:.]*:[0-9a-f:.]*\]?(?:\/\d{1,3})?)$/i;

/**
 * The proxies the flag trusts; `undefined` for none.
 *
 * @throws UsageFailure for a value that is neither a number of hops nor a list of ranges.
 */
export function parseTrustProxy(values: {
  readonly 'trust-proxy'?: string | undefined;
}): TrustProxyOption | undefined {
  const raw = (values['trust-proxy'] ?? process.env.TANDEM_TRUST_PROXY ?? '').trim();
  if (raw === '') return undefined;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 32) {
      throw new UsageFailure(`--trust-proxy as a number of hops must be 1 to 32, got "${raw}"`);
    }
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const wrong = entries.find((entry) => !RANGE.test(entry));
  if (wrong !== undefined) {
    throw new UsageFailure(
      `--trust-proxy takes CIDR ranges or addresses (e.g. 10.0.0.0/8,loopback) or a number of hops, got "${wrong}"`,
    );
  }
  return entries;
}

/** The proxy flag: the trusted proxies, or `undefined` for none. */
export const PROXY_GROUP = {
  options: PROXY_OPTIONS,
  help: PROXY_HELP,
  parse: parseTrustProxy,
} satisfies ServeOptionGroup<
  { readonly 'trust-proxy'?: string | undefined },
  TrustProxyOption | undefined
>;
