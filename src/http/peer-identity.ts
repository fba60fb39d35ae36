/**
 * Who is on the other end of a `node:net` or `node:tls` socket, for the identity hook: the remote
 * address, and the client certificate when the connection is TLS and the certificate was verified
 * against the server's trusted CAs (`requestCert` with a `ca`). An unverified certificate is never
 * reported: a principal must not come from a certificate nobody checked.
 */

import type { Socket } from 'node:net';
import type { PeerCertificate as NodePeerCertificate, TLSSocket } from 'node:tls';
import type { PeerCertificate, PeerIdentity } from '../bindings/server/http-exchange.js';

function isTlsSocket(socket: Socket): socket is TLSSocket {
  return (socket as Partial<TLSSocket>).encrypted === true;
}

type Fields = Readonly<Record<string, string | readonly string[]>>;

/** The fields Node reports as set (its type allows `undefined` values). */
function fieldsOf(value: object | undefined): Fields {
  const fields: Record<string, string | readonly string[]> = {};
  for (const [key, field] of Object.entries(value ?? {})) {
    if (typeof field === 'string' || Array.isArray(field)) fields[key] = field as string | string[];
  }
  return fields;
}

function certificateOf(socket: Socket): PeerCertificate | undefined {
  if (!isTlsSocket(socket) || !socket.authorized) return undefined;
  const raw: NodePeerCertificate = socket.getPeerCertificate();
  if (raw === null || typeof raw !== 'object' || raw.fingerprint256 === undefined) return undefined;
  return {
    subject: fieldsOf(raw.subject),
    issuer: fieldsOf(raw.issuer),
    fingerprint256: raw.fingerprint256,
    serialNumber: raw.serialNumber,
    validFrom: raw.valid_from,
    validTo: raw.valid_to,
  };
}

/** The peer of a socket. */
export function peerOf(socket: Socket): PeerIdentity {
  return { address: socket.remoteAddress, certificate: certificateOf(socket) };
}
