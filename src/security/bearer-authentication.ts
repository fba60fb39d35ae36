/**
 * Static bearer tokens (`--auth bearer --token-file F`): `Authorization: Bearer <token>` with a
 * token of the list authenticates the principal the list names for it. Declared in the card as an
 * HTTP `Bearer` scheme.
 */

import { AuthenticationError } from '../bindings/server/authentication.js';
import type { CredentialList } from './credential-list.js';
import type { ServerAuthentication } from './server-authentication.js';

/** The card's name of the scheme. */
export const BEARER_SCHEME_NAME = 'bearer';

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token of an `Authorization: Bearer` value, or `undefined`. */
export function bearerTokenOf(authorization: string | null | undefined): string | undefined {
  if (authorization === null || authorization === undefined) return undefined;
  return BEARER.exec(authorization)?.[1];
}

/** Authentication by the bearer tokens of `tokens`. */
export function bearerAuthentication(tokens: CredentialList): ServerAuthentication {
  const challenge = 'Bearer realm="a2a"';
  return {
    authenticate({ headers }) {
      const authorization = headers.get('authorization');
      const token = bearerTokenOf(authorization);
      if (token === undefined) {
        return new AuthenticationError(
          'Authentication required: send Authorization: Bearer <token>',
          { challenges: [challenge], credentialsPresented: false },
        );
      }
      const name = tokens.principalOf(token);
      if (name === undefined) {
        return new AuthenticationError('The bearer token is not valid', {
          challenges: [`${challenge}, error="invalid_token"`],
          credentialsPresented: true,
        });
      }
      return { id: name, anonymous: false };
    },
    securitySchemes: {
      [BEARER_SCHEME_NAME]: {
        httpAuthSecurityScheme: { scheme: 'Bearer', description: 'A token issued by the operator' },
      },
    },
    securityRequirements: [{ schemes: { [BEARER_SCHEME_NAME]: { list: [] } } }],
  };
}
