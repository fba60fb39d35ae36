/**
 * What keeps the inspector's backend to its own page. The backend holds credentials and reaches
 * agents on the user's behalf, so a web page of any other origin must not drive it:
 * - a Host check against DNS rebinding: a hostile name that resolves to 127.0.0.1 reaches the
 *   port, but its requests carry that name in `Host`, and only the names the inspector is
 *   served under pass;
 * - a per-run token, written into the page the inspector serves and required in a header on
 *   every API call, against cross-site requests: another origin can send a request, but cannot
 *   read the page to learn the token, and a custom header makes the request one a browser will
 *   not send cross-origin without a preflight this backend never grants;
 * - `Origin` and `Sec-Fetch-Site`, when the browser sends them, must say the same origin.
 */

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { TOKEN_HEADER } from './inspector-api.js';

/** Why a request was refused, with the status to answer. */
export interface GuardRefusal {
  readonly status: 403 | 421;
  readonly message: string;
}

/** The request parts the guard reads. */
export interface GuardedRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A fresh token for one run of the inspector: 32 random bytes, base64url. */
export function createRunToken(): string {
  return randomBytes(32).toString('base64url');
}

function header(request: GuardedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Compares without stopping at the first difference, so that timing reveals no prefix. */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `host` (a name or address, without port) is a loopback one. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/**
 * The `Host` values under which the inspector is reached, for the address it listens on: a
 * loopback address is reached as `localhost`, `127.0.0.1` and `[::1]` too. A wildcard address
 * (`0.0.0.0`, `::`) admits only the loopback names and `extraHosts`: which names point at the
 * machine is not for the inspector to guess.
 */
export function allowedHostsFor(
  host: string,
  port: number,
  extraHosts: readonly string[] = [],
): ReadonlySet<string> {
  const names = new Set<string>();
  const add = (name: string): void => {
    const bare = name.replace(/^\[|\]$/g, '').toLowerCase();
    names.add(isIP(bare) === 6 ? `[${bare}]:${port}` : `${bare}:${port}`);
  };
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  if (wildcard || isLoopbackHost(host)) {
    for (const name of ['localhost', '127.0.0.1', '::1']) add(name);
  }
  if (!wildcard) add(host);
  for (const name of extraHosts) add(name);
  return names;
}

/** Checks requests against the allowed hosts and the run's token. */
export interface RequestGuard {
  /** The run's token, to write into the page. */
  readonly token: string;
  /** Refuses a request whose `Host` is not the inspector's (any route). */
  checkHost(request: GuardedRequest): GuardRefusal | undefined;
  /** Refuses an API call without the token, or from another origin. */
  checkApiCall(request: GuardedRequest): GuardRefusal | undefined;
}

/** Options of {@link createRequestGuard}. */
export interface RequestGuardOptions {
  /** The `host:port` values to accept (see {@link allowedHostsFor}). */
  readonly allowedHosts: () => ReadonlySet<string>;
  /** The run's token; a fresh one when absent. */
  readonly token?: string;
}

/** Creates the guard of one run. */
export function createRequestGuard(options: RequestGuardOptions): RequestGuard {
  const token = options.token ?? createRunToken();
  const checkHost = (request: GuardedRequest): GuardRefusal | undefined => {
    const host = header(request, 'host')?.toLowerCase();
    if (host !== undefined && options.allowedHosts().has(host)) return undefined;
    return {
      status: 421,
      message:
        `The inspector does not answer to the host ${JSON.stringify(host ?? '')}: open it at the ` +
        'address it printed (a check against DNS rebinding)',
    };
  };
  return {
    token,
    checkHost,
    checkApiCall(request) {
      const refused = checkHost(request);
      if (refused !== undefined) return refused;
      const origin = header(request, 'origin');
      if (origin !== undefined) {
        let originHost: string | undefined;
        try {
          originHost = new URL(origin).host.toLowerCase();
        } catch {
          originHost = undefined;
        }
        if (originHost === undefined || !options.allowedHosts().has(originHost)) {
          return { status: 403, message: `Calls from the origin ${origin} are not accepted` };
        }
      }
      const site = header(request, 'sec-fetch-site');
      if (site !== undefined && site !== 'same-origin' && site !== 'none') {
        return { status: 403, message: `Calls from a ${site} page are not accepted` };
      }
      if (!tokenMatches(header(request, TOKEN_HEADER), token)) {
        return {
          status: 403,
          message:
            'This call lacks the inspector token of this run: reload the page the inspector ' +
            'printed (a restarted inspector has a new token)',
        };
      }
      return undefined;
    },
  };
}
