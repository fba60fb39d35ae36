/**
 * CORS for the A2A routes, so that browser clients can fetch cards and call agents. A response to
 * a request with an `Origin` (which browsers send on every cross-origin call) carries the
 * allow-origin headers; a preflight (`OPTIONS`) is answered by the router with the methods of the
 * route and the request headers A2A clients send (spec 3.2.6, 14.2). Requests without `Origin`
 * (servers, CLIs) get no CORS headers: they would be ignored.
 */

import type { HeaderReader } from '../bindings/server/http-exchange.js';
import type { CorsOrigins } from './http-options.js';

/** Request headers a browser client may send to an A2A server. */
const ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'A2A-Version',
  'A2A-Extensions',
  'Last-Event-ID',
  'X-API-Key',
  'If-None-Match',
  'If-Modified-Since',
  'X-Request-Id',
  'traceparent',
  'tracestate',
  'baggage',
].join(', ');

/** Response headers a browser client must be able to read. */
const EXPOSED_HEADERS = [
  'A2A-Extensions',
  'X-Request-Id',
  'ETag',
  'Last-Modified',
  'WWW-Authenticate',
  'Retry-After',
].join(', ');

/** Preflight results may be cached by the browser for a day. */
const PREFLIGHT_MAX_AGE = '86400';

/** Adds CORS headers to responses. */
export interface CorsPolicy {
  /** Adds the allow-origin headers for `request` (whose `Origin` is read only when needed). */
  apply(headers: Record<string, string>, request: HeaderReader): void;
  /** Adds the preflight headers for a route that allows `methods`. */
  preflight(headers: Record<string, string>, request: HeaderReader, methods: string): void;
}

/** Creates the policy for the `corsOrigins` option. */
export function createCorsPolicy(origins: CorsOrigins): CorsPolicy {
  if (origins === false) {
    return { apply: () => {}, preflight: () => {} };
  }
  const allowed = origins === '*' ? undefined : new Set(origins);
  const apply = (headers: Record<string, string>, request: HeaderReader): boolean => {
    if (allowed !== undefined) headers.vary = 'Origin';
    const origin = request.get('origin');
    if (origin === null || origin === undefined) return false;
    if (allowed === undefined) {
      headers['access-control-allow-origin'] = '*';
    } else {
      if (!allowed.has(origin)) return false;
      headers['access-control-allow-origin'] = origin;
    }
    headers['access-control-expose-headers'] = EXPOSED_HEADERS;
    return true;
  };
  return {
    apply,
    preflight(headers, request, methods) {
      if (!apply(headers, request)) return;
      headers['access-control-allow-methods'] = methods;
      headers['access-control-allow-headers'] = ALLOWED_HEADERS;
      headers['access-control-max-age'] = PREFLIGHT_MAX_AGE;
    },
  };
}
