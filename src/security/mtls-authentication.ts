/**
 * Mutual TLS (`--auth mtls`, with `--tls-cert`, `--tls-key` and `--tls-ca`): a client certificate
 * that the server's trusted CAs verified during the handshake authenticates the principal named
 * by its subject (`mtls:CN=alice,O=Example`). The transport reports only verified certificates
 * (see `PeerIdentity`), so an unverified one is the same as none.
 */

import { AuthenticationError } from '../bindings/server/authentication.js';
import type { PeerCertificate } from '../bindings/server/http-exchange.js';
import type { ServerAuthentication } from './server-authentication.js';

/** The card's name of the scheme. */
export const MTLS_SCHEME_NAME = 'mtls';

/** Subject fields in the order a distinguished name is usually read. */
const ORDER = ['CN', 'OU', 'O', 'L', 'ST', 'C'];

/** The subject of a certificate as a stable, readable distinguished name. */
export function subjectOf(certificate: PeerCertificate): string {
  const entries = Object.entries(certificate.subject);
  entries.sort(([a], [b]) => {
    const ia = ORDER.indexOf(a);
    const ib = ORDER.indexOf(b);
    return (ia === -1 ? ORDER.length : ia) - (ib === -1 ? ORDER.length : ib) || a.localeCompare(b);
  });
  return entries
    .map(([key, value]) => `${key}=${(typeof value === 'string' ? [value] : value).join('+')}`)
    .join(',');
}

/** Authentication by verified client certificate. */
export function mtlsAuthentication(): ServerAuthentication {
  return {
    authenticate({ peer }) {
      const certificate = peer.certificate;
      if (certificate === undefined) {
        return new AuthenticationError(
          'Authentication required: connect with a client certificate this agent trusts',
          { challenges: ['MutualTLS realm="a2a"'] },
        );
      }
      return { id: `mtls:${subjectOf(certificate)}`, anonymous: false };
    },
    securitySchemes: {
      [MTLS_SCHEME_NAME]: {
        mtlsSecurityScheme: {
          description: 'A client certificate issued by a CA this agent trusts',
        },
      },
    },
    securityRequirements: [{ schemes: { [MTLS_SCHEME_NAME]: { list: [] } } }],
  };
}
