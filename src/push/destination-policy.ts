/**
 * Where webhooks may go (spec 13.2): the server-side request forgery guard. A push config names
 * a URL that the server will POST to from inside the operator's network; without a guard, any
 * caller allowed to create a config could make the server reach its loopback services, the
 * private network or a cloud metadata endpoint (and read the answers through delivery errors).
 *
 * Refused: schemes other than http(s), user info in the URL, and any host that is or resolves to
 * an address outside public unicast — loopback, private (RFC 1918, RFC 4193), link-local
 * (metadata endpoints live there), CGNAT, multicast, unspecified, broadcast, reserved and the
 * IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) — in every
 * spelling: the WHATWG URL parser turns decimal, octal and hex IPv4 into dotted quads, and the
 * embedded IPv4 of an IPv6 address is checked as IPv4. Names that mean this host (`localhost`,
 * `*.localhost`) and well-known metadata names are refused without resolving them.
 *
 * The operator admits chosen destinations with an allow list: a host name (that name exactly),
 * an address (exactly that address) or a CIDR range.
 */

import { createRequire } from 'node:module';
import type * as IpAddr from 'ipaddr.js';
import { ConfigurationError } from '../protocol/local-errors.js';

/** Names refused without resolving them: this host, and cloud metadata services. */
const LOCAL_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'instance-data']);

let ipaddrModule: typeof IpAddr | undefined;

/**
 * ipaddr.js, loaded at its first use: it takes a few ms to load, which a server with push on
 * but no config yet should not pay at start-up. It is CommonJS whose types declare ES exports,
 * hence require().
 */
function ipaddr(): typeof IpAddr {
  ipaddrModule ??= createRequire(import.meta.url)('ipaddr.js') as typeof IpAddr;
  return ipaddrModule;
}

type Address = IpAddr.IPv4 | IpAddr.IPv6;

/** One entry of the allow list, parsed. */
type AllowEntry =
  | { readonly kind: 'host'; readonly host: string }
  | { readonly kind: 'range'; readonly range: [Address, number] };

/** A URL that passed the checks that need no name resolution. */
export interface CheckedUrl {
  readonly url: URL;
  /** The host without brackets or trailing dot, lower case. */
  readonly host: string;
  /** The host is an IP address literal. */
  readonly literal: boolean;
  /** The host is admitted by name: its addresses are not checked. */
  readonly allowedByName: boolean;
}

/** The destination policy of one server. */
export class DestinationPolicy {
  readonly #allow: readonly AllowEntry[];

  /** `allow`: host names, addresses or CIDR ranges admitted although private or local. */
  constructor(allow: readonly string[] = []) {
    this.#allow = allow.map(parseAllowEntry);
  }

  /**
   * Checks a URL's form and, when its host is an address, the address. Returns the checked URL
   * or why it is refused (a sentence naming no credentials).
   */
  checkUrl(text: string): CheckedUrl | string {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'must be an absolute http or https URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return `must be an http or https URL, got the scheme ${url.protocol.slice(0, -1)}`;
    }
    if (url.username !== '' || url.password !== '') {
      return 'must not carry user info (put credentials in authentication instead)';
    }
    const host = url.hostname
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    if (host === '') return 'must name a host';
    const allowedByName = this.#allow.some((entry) => entry.kind === 'host' && entry.host === host);
    const literal = ipaddr().isValid(host);
    if (!allowedByName) {
      if (literal) {
        const reason = this.checkAddress(host);
        if (reason !== undefined) return reason;
      } else if (LOCAL_NAMES.has(host) || host.endsWith('.localhost')) {
        return `must not point at ${host}, which names this host or a metadata service`;
      }
    }
    return { url, host, literal, allowedByName };
  }

  /** Why an address may not be dialled, or `undefined` when it may. */
  checkAddress(address: string): string | undefined {
    let parsed: Address;
    try {
      parsed = ipaddr().parse(address.replace(/%.*$/, ''));
    } catch {
      return `${address} is not an IP address`;
    }
    const effective = embeddedIpv4(parsed) ?? parsed;
    if (this.#admits(parsed) || this.#admits(effective)) return undefined;
    const range = effective.range();
    if (range === 'unicast') return undefined;
    return `${address} is ${describeRange(range)} address, which webhooks may not reach (admit it with --push-allow)`;
  }

  #admits(address: Address): boolean {
    return this.#allow.some(
      (entry) =>
        entry.kind === 'range' &&
        entry.range[0].kind() === address.kind() &&
        address.match(entry.range),
    );
  }
}

/** The IPv4 address inside an IPv6 one (mapped, compatible), if any. */
function embeddedIpv4(address: Address): IpAddr.IPv4 | undefined {
  if (address.kind() !== 'ipv6') return undefined;
  const v6 = address as IpAddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const parts = v6.parts;
  // IPv4-compatible (::a.b.c.d, deprecated but still routed by some stacks); `::` and `::1` stay
  // IPv6 (unspecified, loopback).
  if (
    parts.slice(0, 6).every((part: number) => part === 0) &&
    ((parts[6] ?? 0) !== 0 || (parts[7] ?? 0) > 1)
  ) {
    const hi = parts[6] ?? 0;
    const lo = parts[7] ?? 0;
    return new (ipaddr().IPv4)([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  }
  return undefined;
}

function describeRange(range: string): string {
  switch (range) {
    case 'loopback':
      return 'a loopback';
    case 'private':
    case 'uniqueLocal':
      return 'a private';
    case 'linkLocal':
      return 'a link-local (cloud metadata)';
    case 'carrierGradeNat':
      return 'a carrier-grade NAT';
    case 'multicast':
      return 'a multicast';
    case 'unspecified':
      return 'an unspecified';
    case 'broadcast':
      return 'a broadcast';
    default:
      return `a special-purpose (${range})`;
  }
}

function parseAllowEntry(text: string): AllowEntry {
  const entry = text
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (entry === '') {
    throw new ConfigurationError(
      'A push allow-list entry is empty; give a host name, an address or a CIDR range',
    );
  }
  if (entry.includes('/')) {
    try {
      return { kind: 'range', range: ipaddr().parseCIDR(entry) };
    } catch {
      throw new ConfigurationError(
        `The push allow-list entry ${JSON.stringify(text)} is not a valid CIDR range`,
      );
    }
  }
  if (ipaddr().isValid(entry)) {
    const address = ipaddr().parse(entry);
    return { kind: 'range', range: [address, address.kind() === 'ipv4' ? 32 : 128] };
  }
  return { kind: 'host', host: entry.replace(/\.$/, '') };
}
