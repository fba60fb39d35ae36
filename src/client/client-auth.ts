/**
 * Credentials on the wire. A bearer token goes in `Authorization`; an API key goes where the
 * card's `APIKeySecurityScheme` says (spec 4.5.2: a header, a query parameter or a cookie, under
 * the scheme's `name`), unless the caller names the place. Credentials go to the agent's
 * interface only: never to the card URL, which may be served by another host (a registry).
 * They are part of each call (its headers, its URL's query) before the interceptors run, so that
 * interceptors see the call as it is sent and every transport carries them alike.
 */

import type { AgentCard, APIKeySecurityScheme } from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';

/**
 * Credentials for the agent, sent with every call of the selected interface. They are not sent
 * with the card fetch, whose URL may belong to another host (a registry); use `headers` or an
 * interceptor if a card endpoint needs them.
 */
export interface ClientAuth {
  /** Sent as `Authorization: Bearer <token>`. */
  readonly bearerToken?: string;
  /**
   * An API key, sent where the card's `APIKeySecurityScheme` says (header, query parameter or
   * cookie, under the scheme's name); `name` and `location` override the card.
   */
  readonly apiKey?: {
    readonly value: string;
    readonly name?: string;
    readonly location?: 'header' | 'query' | 'cookie';
  };
}

/** Where credentials go: headers of every call, and possibly a parameter of the call URL. */
export interface AppliedAuth {
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The API key's query parameter (name, value), when the scheme says `query`. */
  readonly query?: readonly [string, string];
}

/** The API key scheme of the card: the first one the security requirements name, else any. */
function apiKeySchemeOf(card: AgentCard): APIKeySecurityScheme | undefined {
  const schemes = card.securitySchemes ?? {};
  for (const requirement of card.securityRequirements ?? []) {
    for (const name of Object.keys(requirement.schemes ?? {})) {
      const scheme = schemes[name]?.apiKeySecurityScheme;
      if (scheme !== undefined) return scheme;
    }
  }
  for (const scheme of Object.values(schemes)) {
    if (scheme.apiKeySecurityScheme !== undefined) return scheme.apiKeySecurityScheme;
  }
  return undefined;
}

/**
 * Resolves the caller's credentials against the card.
 *
 * @throws ConfigurationError when an API key has nowhere to go (no name given, no scheme in the
 *   card) or a location this client cannot use.
 */
export function applyAuth(auth: ClientAuth | undefined, card: AgentCard): AppliedAuth {
  const headers: Array<readonly [string, string]> = [];
  if (auth?.bearerToken !== undefined) {
    headers.push(['authorization', `Bearer ${auth.bearerToken}`]);
  }
  const apiKey = auth?.apiKey;
  if (apiKey === undefined) return { headers };
  const scheme = apiKeySchemeOf(card);
  const name = apiKey.name ?? scheme?.name;
  const location = (apiKey.location ?? scheme?.location ?? 'header').toLowerCase();
  if (name === undefined || name === '') {
    throw new ConfigurationError(
      `auth.apiKey has no name and the agent card "${card.name}" declares no APIKeySecurityScheme; ` +
        'set auth.apiKey.name (and location) to where the agent expects the key',
    );
  }
  switch (location) {
    case 'header':
      headers.push([name, apiKey.value]);
      return { headers };
    case 'cookie':
      headers.push(['cookie', `${name}=${encodeURIComponent(apiKey.value)}`]);
      return { headers };
    case 'query':
      return { headers, query: [name, apiKey.value] };
    default:
      throw new ConfigurationError(
        `The API key location ${JSON.stringify(location)} is not one of header, query or cookie; ` +
          'set auth.apiKey.location',
      );
  }
}
