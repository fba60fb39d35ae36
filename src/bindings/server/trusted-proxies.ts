/**
 * Who the client is behind a reverse proxy. Every caller of a server behind a proxy connects from
 * the proxy's address, so the limits that key anonymous callers by address (call limits,
 * failed authentications) would count every user as one. With `trustProxy`, the address a call
 * comes from is read from `X-Forwarded-For` (or, without it, `Forwarded` of RFC 7239), walking
 * the chain from the nearest hop back only through trusted proxies — so that a client cannot
 * choose its own key by sending the header itself, through a proxy that appends to it or
 * directly:
 * - ranges (`['10.0.0.0/8', 'loopback']`): each hop whose address is in them is a proxy; the
 *   first address that is not is the client;
 * - a number of hops (`1`): that many proxies stand before the server, whatever their address.
 * Without `trustProxy` the headers are ignored, and the first request that carries one is
 * logged once, since the limits then key every caller behind the proxy on its address.
 */

import type { Logger } from '../../runtime/logger.js';
import { ConfigurationError } from '../../protocol/local-errors.js';
import type { HeaderReader, HttpRequest, PeerIdentity } from './http-exchange.js';
import { IpRange, parseIp } from './ip-ranges.js';

/**
 * The proxies a server trusts to name their client: CIDR ranges or addresses (`loopback` for
 * 127.0.0.0/8 and ::1), or the number of proxy hops in front of the server.
 */
export type TrustProxyOption = number | string | readonly string[];

/** The forwarded addresses read at most, nearest last: a longer chain is cut from the far end. */
const MAX_HOPS = 32;

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

/** An address from a header entry: quotes, brackets and a port removed. */
function addressOf(entry: string): string {
  let text = entry.trim().replace(/^"(.*)"$/, '$1');
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed !== null) return bracketed[1] as string;
  const v4WithPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(text);
  if (v4WithPort !== null) text = v4WithPort[1] as string;
  return text;
}

/** The addresses a request was forwarded for, farthest first; empty for none. */
export function forwardedChain(headers: HeaderReader): string[] {
  const xff = headers.get('x-forwarded-for');
  if (xff !== null && xff !== undefined && xff.trim() !== '') {
    return xff
      .split(',')
      .slice(-MAX_HOPS)
      .map(addressOf)
      .filter((a) => a !== '');
  }
  const forwarded = headers.get('forwarded');
  if (forwarded === null || forwarded === undefined) return [];
  const chain: string[] = [];
  for (const element of forwarded.split(',').slice(-MAX_HOPS)) {
    for (const pair of element.split(';')) {
      const [name, value] = pair.split('=', 2);
      if (name?.trim().toLowerCase() === 'for' && value !== undefined) {
        chain.push(addressOf(value));
      }
    }
  }
  return chain;
}

type Trust = { readonly hops: number } | { readonly ranges: readonly IpRange[] };

function resolveTrust(option: TrustProxyOption): Trust {
  if (typeof option === 'number') {
    if (!Number.isInteger(option) || option < 1 || option > MAX_HOPS) {
      throw new ConfigurationError(
        `trustProxy as a number of proxy hops must be an integer from 1 to ${MAX_HOPS}; got ${option}`,
      );
    }
    return { hops: option };
  }
  const entries = (typeof option === 'string' ? option.split(',') : [...option])
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) {
    throw new ConfigurationError(
      'trustProxy lists no proxy: give CIDR ranges or addresses (e.g. 10.0.0.0/8, loopback) or a number of hops',
    );
  }
  const ranges = entries.flatMap((entry) => (entry === 'loopback' ? LOOPBACK : [entry]));
  return {
    ranges: ranges.map((entry) => {
      const range = IpRange.parse(entry);
      if (range === undefined) {
        throw new ConfigurationError(
          `trustProxy entry ${JSON.stringify(entry)} is neither a CIDR range, an IP address nor "loopback"`,
        );
      }
      return range;
    }),
  };
}

/** A request whose peer address is its client's, as the trusted proxies forwarded it. */
class ForwardedRequest implements HttpRequest {
  readonly #request: HttpRequest;
  readonly #proxies: TrustedProxies;
  #peer: PeerIdentity | undefined;

  constructor(request: HttpRequest, proxies: TrustedProxies) {
    this.#request = request;
    this.#proxies = proxies;
  }

  get(name: string): string | null | undefined {
    return this.#request.get(name);
  }
  get method(): string {
    return this.#request.method;
  }
  get path(): string {
    return this.#request.path;
  }
  get query(): string {
    return this.#request.query;
  }
  get scheme(): 'http' | 'https' {
    return this.#request.scheme;
  }
  get mountPath(): string {
    return this.#request.mountPath;
  }
  get localPort(): number | undefined {
    return this.#request.localPort;
  }
  get peer(): PeerIdentity {
    if (this.#peer === undefined) {
      const peer = this.#request.peer;
      this.#peer = {
        address: this.#proxies.clientAddress(peer.address, this.#request),
        certificate: peer.certificate,
      };
    }
    return this.#peer;
  }
  readBody(limit: number): ReturnType<HttpRequest['readBody']> {
    return this.#request.readBody(limit);
  }
  get signal(): AbortSignal {
    return this.#request.signal;
  }
}

/** The proxies a server trusts, and the once-only notice when it trusts none. */
export class TrustedProxies {
  readonly #trust: Trust | undefined;
  readonly #logger: Logger;
  #told = false;

  /** @throws ConfigurationError for an option that names no proxy or an invalid range. */
  constructor(option: TrustProxyOption | undefined, logger: Logger) {
    this.#trust = option === undefined ? undefined : resolveTrust(option);
    this.#logger = logger;
  }

  /** The request as the server works on it: its peer the client, when proxies are trusted. */
  through(request: HttpRequest): HttpRequest {
    if (this.#trust !== undefined) return new ForwardedRequest(request, this);
    if (!this.#told) this.#noticeForwarded(request);
    return request;
  }

  /**
   * The client's address of a call from `peer` with `headers`: the peer itself unless it is a
   * trusted proxy, else the nearest forwarded address not trusted.
   */
  clientAddress(peer: string | undefined, headers: HeaderReader): string | undefined {
    const trust = this.#trust;
    if (trust === undefined || peer === undefined) return peer;
    const chain = [...forwardedChain(headers), peer];
    if ('hops' in trust) return chain[Math.max(0, chain.length - 1 - trust.hops)];
    let index = chain.length - 1;
    while (index > 0 && this.#trusted(chain[index] as string, trust.ranges)) index -= 1;
    return chain[index];
  }

  #trusted(address: string, ranges: readonly IpRange[]): boolean {
    const bytes = parseIp(address);
    return bytes !== undefined && ranges.some((range) => range.contains(bytes));
  }

  #noticeForwarded(headers: HeaderReader): void {
    const header = headers.get('x-forwarded-for') ?? headers.get('forwarded');
    if (header === null || header === undefined) return;
    this.#told = true;
    this.#logger.warn(
      {},
      'a request came through a proxy (X-Forwarded-For/Forwarded), but no proxy is trusted: the limits key every anonymous caller behind it on the proxy address; trust it with trustProxy (docs/deploy.md)',
    );
  }
}
