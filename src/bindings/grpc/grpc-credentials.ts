/**
 * How the gRPC listener is reached: its TLS material as grpc-js server credentials, and the bare
 * `host:port` of its interface URLs (spec 10: gRPC interface URLs are authorities).
 */

import { ServerCredentials } from '@grpc/grpc-js';

/** The server's TLS material, PEM-encoded. */
export interface GrpcTlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  /** CAs whose client certificates are verified and reported to the identity hook. */
  readonly ca?: string | Buffer | undefined;
}

/** The bare `host:port` of an interface URL, an IPv6 host in brackets. */
export function authorityOf(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The host of the URL a card is served under (`localhost` for one that is no URL). */
export function hostOfBaseUrl(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return 'localhost';
  }
}

/** Plaintext credentials, or TLS ones with the client certificates `tls.ca` verifies. */
export function credentialsOf(tls: GrpcTlsOptions | undefined): ServerCredentials {
  if (tls === undefined) return ServerCredentials.createInsecure();
  const toBuffer = (value: string | Buffer): Buffer =>
    typeof value === 'string' ? Buffer.from(value) : value;
  const credentials = ServerCredentials.createSsl(
    tls.ca === undefined ? null : toBuffer(tls.ca),
    [{ cert_chain: toBuffer(tls.cert), private_key: toBuffer(tls.key) }],
    tls.ca !== undefined,
  );
  // grpc-js asks for client certificates with `requestCert`, which Node pairs with
  // `rejectUnauthorized: true`: a client without a certificate could not connect at all. As on
  // HTTPS, it may (other authentication methods need it to); grpc-js reports only verified
  // certificates (`getAuthContext` checks `socket.authorized`).
  if (tls.ca !== undefined) {
    const options = credentials._getConstructorOptions() as { rejectUnauthorized?: boolean } | null;
    if (options !== null) options.rejectUnauthorized = false;
  }
  return credentials;
}
