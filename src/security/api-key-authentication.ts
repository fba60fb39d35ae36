/**
 * API keys (`--auth api-key --api-key-file F [--api-key-header X-API-Key]`): a key of the list,
 * sent where the card's `APIKeySecurityScheme` says — a header (default `X-API-Key`), a query
 * parameter or a cookie — authenticates the principal the list names for it. A key sent anywhere
 * else is not read: the scheme says where clients put it.
 */

import {
  AuthenticationError,
  type AuthenticationRequest,
} from '../bindings/server/authentication.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import type { CredentialList } from './credential-list.js';
import type { ServerAuthentication } from './server-authentication.js';

/** The card's name of the scheme. */
export const API_KEY_SCHEME_NAME = 'apiKey';

/** Where clients send the key. */
export type ApiKeyLocation = 'header' | 'query' | 'cookie';

/** Options of {@link apiKeyAuthentication}. */
export interface ApiKeyOptions {
  readonly keys: CredentialList;
  /** Default `header`. */
  readonly location?: ApiKeyLocation | undefined;
  /** The header, query parameter or cookie name. Default `X-API-Key`. */
  readonly name?: string | undefined;
}

const TOKEN_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

function cookieValue(header: string | null | undefined, name: string): string | undefined {
  if (header === null || header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function keyOf(
  request: AuthenticationRequest,
  location: ApiKeyLocation,
  name: string,
): string | undefined {
  switch (location) {
    case 'header':
      return request.headers.get(name.toLowerCase()) ?? undefined;
    case 'query':
      return new URLSearchParams(request.query).get(name) ?? undefined;
    case 'cookie':
      try {
        return cookieValue(request.headers.get('cookie'), name);
      } catch {
        // A malformed percent-encoding is a key that does not match.
        return '';
      }
  }
}

/**
 * Authentication by API key.
 *
 * @throws ConfigurationError for a name that cannot be a header, parameter or cookie name.
 */
export function apiKeyAuthentication(options: ApiKeyOptions): ServerAuthentication {
  const location = options.location ?? 'header';
  const name = options.name ?? 'X-API-Key';
  if (!TOKEN_NAME.test(name)) {
    throw new ConfigurationError(
      `The API key name ${JSON.stringify(name)} is not a valid ${location} name; use e.g. X-API-Key`,
    );
  }
  const challenge = `APIKey realm="a2a", in="${location}", name="${name}"`;
  const where = location === 'header' ? `the ${name} header` : `the ${name} ${location}`;
  return {
    authenticate(request) {
      const key = keyOf(request, location, name);
      if (key === undefined || key === '') {
        return new AuthenticationError(`Authentication required: send the API key in ${where}`, {
          challenges: [challenge],
          credentialsPresented: key === '',
        });
      }
      const principal = options.keys.principalOf(key);
      if (principal === undefined) {
        return new AuthenticationError(`The API key in ${where} is not valid`, {
          challenges: [challenge],
          credentialsPresented: true,
        });
      }
      return { id: principal, anonymous: false };
    },
    securitySchemes: {
      [API_KEY_SCHEME_NAME]: { apiKeySecurityScheme: { location, name } },
    },
    securityRequirements: [{ schemes: { [API_KEY_SCHEME_NAME]: { list: [] } } }],
  };
}
