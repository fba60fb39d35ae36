/**
 * The absolute base URL a client used to reach the handler, for the URLs the server publishes
 * (agent card `supportedInterfaces[].url`, the agent index). A card must name a URL the client
 * can reach, so the base comes, in order of preference, from:
 * 1. the `publicUrl` option (the operator knows best, e.g. behind a path-rewriting proxy);
 * 2. `X-Forwarded-Proto` / `X-Forwarded-Host` (first value of a comma list), set by proxies;
 * 3. the `Host` header and the connection's scheme.
 *
 * A bind address is never published: a `Host` of `0.0.0.0` or `[::]` (a client that dialed the
 * wildcard address), or a missing or malformed `Host`, becomes `127.0.0.1:<port>` — the loopback
 * address is reachable from where such a request can come from, the wildcard is not.
 */

import type { HttpRequest } from '../bindings/server/http-exchange.js';

/** A host, optionally with a port: a DNS name or IPv4 address, or a bracketed IPv6 address. */
const HOST_PATTERN =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,251}[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;

const WILDCARD_HOSTS = new Set(['0.0.0.0', '[::]', '[0:0:0:0:0:0:0:0]', '[::0]']);

function firstValue(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const comma = value.indexOf(',');
  const first = (comma === -1 ? value : value.slice(0, comma)).trim();
  return first === '' ? undefined : first;
}

function hostOf(request: HttpRequest): string {
  const fallbackPort = request.localPort === undefined ? '' : `:${request.localPort}`;
  const candidate = firstValue(request.get('x-forwarded-host')) ?? firstValue(request.get('host'));
  const match = candidate === undefined ? null : HOST_PATTERN.exec(candidate);
  if (candidate === undefined || match === null) return `127.0.0.1${fallbackPort}`;
  const port = match[1];
  const hostname = port === undefined ? candidate : candidate.slice(0, -port.length - 1);
  if (WILDCARD_HOSTS.has(hostname))
    return `127.0.0.1${port === undefined ? fallbackPort : `:${port}`}`;
  return candidate;
}

function schemeOf(request: HttpRequest): string {
  const forwarded = firstValue(request.get('x-forwarded-proto'))?.toLowerCase();
  return forwarded === 'http' || forwarded === 'https' ? forwarded : request.scheme;
}

/**
 * The base URL (no trailing slash) under which the handler's routes live for this request: the
 * configured `publicUrl`, or `<scheme>://<host><mountPath>` from the request.
 */
export function baseUrlOf(request: HttpRequest, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl;
  return `${schemeOf(request)}://${hostOf(request)}${request.mountPath}`;
}
