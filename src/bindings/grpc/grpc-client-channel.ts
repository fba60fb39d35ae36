/**
 * Where a gRPC client transport connects and how (spec 10): the authority of an interface URL
 * (a bare `host:port`, as agent cards write gRPC interfaces, or `grpc://`, `grpcs://`, `http://`,
 * `https://`), whether the channel uses TLS, and its credentials. Shared by every dialect of the
 * gRPC transport (`grpc-client-transport.ts`), so that a 0.3 interface connects exactly as a 1.0
 * one does.
 *
 * TLS to an IP address verifies the certificate's IP SAN; the name the handshake announces is
 * then `localhost`, not the address, because SNI carries no addresses (RFC 6066 — Node warns with
 * DEP0123 when asked to send one).
 */

import { isIP } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import {
  credentials as grpcCredentials,
  type ChannelCredentials,
  type ChannelOptions,
} from '@grpc/grpc-js';
import type { ClientTls } from '../client/client-transport.js';
import { ProtocolViolationError } from '../client/transport-errors.js';

/** The authority to connect to, and whether over TLS. */
export interface Target {
  readonly authority: string;
  readonly tls: boolean;
}

/**
 * The target of an interface URL.
 *
 * @param tls whether the client was given TLS material (then a bare `host:port` uses TLS).
 * @throws ProtocolViolationError for a URL of another scheme.
 */
export function targetOf(url: string, cardUrl: string | undefined, tls: boolean): Target {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    return { authority: url, tls: tls || cardUrl?.startsWith('https:') === true };
  }
  if (scheme !== 'grpc' && scheme !== 'grpcs' && scheme !== 'http' && scheme !== 'https') {
    throw new ProtocolViolationError(
      `The gRPC interface URL ${JSON.stringify(url)} is not host:port (nor grpc://, grpcs://, http:// or https://)`,
    );
  }
  const authority = url.slice(scheme.length + 3).replace(/\/.*$/, '');
  return { authority, tls: scheme === 'grpcs' || scheme === 'https' };
}

/** The host of a `host:port` authority (an IPv6 address without its brackets). */
function hostOf(authority: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(authority);
  if (bracketed !== null) return bracketed[1] ?? authority;
  const colon = authority.lastIndexOf(':');
  return colon === -1 ? authority : authority.slice(0, colon);
}

/**
 * The name announced by SNI for a TLS connection to an IP address: SNI carries host names only,
 * and a server that selects certificates by name falls back to its default one for an unknown
 * name, as for none.
 */
const SNI_FOR_ADDRESS = 'localhost';

function pemOf(value: string | Uint8Array | undefined): Buffer | null {
  if (value === undefined) return null;
  return typeof value === 'string' ? Buffer.from(value) : Buffer.from(value);
}

/** The channel's credentials and the options they need for `authority`. */
export function channelOf(
  authority: string,
  tls: ClientTls | undefined,
): { credentials: ChannelCredentials; options: ChannelOptions } {
  const host = hostOf(authority);
  if (isIP(host) === 0) {
    return {
      credentials: grpcCredentials.createSsl(pemOf(tls?.ca), pemOf(tls?.key), pemOf(tls?.cert)),
      options: {},
    };
  }
  // grpc-js announces the target host, an address here, unless the target name is overridden; it
  // then checks the certificate against the override, so the check is given the address back.
  return {
    credentials: grpcCredentials.createSsl(pemOf(tls?.ca), pemOf(tls?.key), pemOf(tls?.cert), {
      checkServerIdentity: (_name: string, certificate: PeerCertificate) =>
        checkServerIdentity(host, certificate),
    }),
    options: { 'grpc.ssl_target_name_override': SNI_FOR_ADDRESS },
  };
}

/** The channel of a target: plaintext, or TLS with the client's material. */
export function channelFor(
  target: Target,
  tls: ClientTls | undefined,
): { credentials: ChannelCredentials; options: ChannelOptions } {
  return target.tls
    ? channelOf(target.authority, tls)
    : { credentials: grpcCredentials.createInsecure(), options: {} };
}
