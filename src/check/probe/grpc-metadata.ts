/**
 * The metadata of one gRPC call of the checker: `a2a-version` (1.0 only, unless the check sets
 * it), the tenant of a 0.3 interface (its messages have no tenant field:
 * `protocol/v03-grpc-tenant.ts`), the run's credentials and headers, the check's own headers and
 * resume id — lower-cased, without the HTTP headers that gRPC owns.
 */

import { V03_GRPC_TENANT_METADATA } from '../../protocol/v03-grpc-tenant.js';
import { VERSION_HEADER } from '../../protocol/version.js';
import type { ProbeEnvironment } from './probe-environment.js';
import type { CallSettings, ProbeTarget } from './probe.js';

/** Headers HTTP/2 and grpc-js set themselves: never sent as metadata. */
const TRANSPORT_HEADERS = ['content-type', 'accept', 'host', 'user-agent', 'te', 'connection'];

/** The metadata pairs of a call to `target` with `settings`. */
export function grpcCallMetadata(
  target: ProbeTarget,
  environment: ProbeEnvironment,
  settings: CallSettings,
): [string, string][] {
  const pairs: (readonly [string, string])[] = [];
  const version =
    settings.version === undefined ? (target.version === '1.0' ? '1.0' : null) : settings.version;
  if (version !== null) pairs.push([VERSION_HEADER.toLowerCase(), version]);
  // A 0.3 message has no tenant field: the interface's tenant routes the call as metadata.
  const tenant = target.tenant;
  if (target.version === '0.3' && tenant !== undefined && tenant !== '') {
    pairs.push([V03_GRPC_TENANT_METADATA, tenant]);
  }
  if (settings.credentials !== false) pairs.push(...environment.credentials.headers);
  pairs.push(...environment.headers);
  for (const [name, value] of Object.entries(settings.headers ?? {})) pairs.push([name, value]);
  if (settings.lastEventId !== undefined) pairs.push(['last-event-id', settings.lastEventId]);
  return pairs
    .map(([name, value]): [string, string] => [name.toLowerCase(), value])
    .filter(([name]) => !TRANSPORT_HEADERS.includes(name));
}
