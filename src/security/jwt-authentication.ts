/**
 * OAuth 2.0 / OpenID Connect access tokens as JWTs (`--auth jwt --jwks-url URL --issuer ISS
 * --audience AUD [--scope S]`, or `--oidc-issuer URL` to find the JWKS by discovery), verified with
 * `jose`: the signature against the issuer's JWKS (fetched, cached, and fetched again when a token
 * names an unknown `kid`, so that key rotation needs no restart), `iss`, `aud`, `exp` and `nbf`
 * with a small clock skew, and the required scopes. `jose` is loaded on the first call, so that a
 * server without JWT authentication does not pay for it at start-up. Only asymmetric algorithms are accepted: `none`
 * and HMAC are refused, so a public key can never be used as an HMAC secret. The principal is
 * `<iss>|<sub>`.
 */

import type * as JoseModule from 'jose';
import type { FetchImplementation, JWTPayload, JWTVerifyGetKey, RemoteJWKSetOptions } from 'jose';
import { AuthenticationError } from '../bindings/server/authentication.js';
import type { SecurityScheme } from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { bearerTokenOf } from './bearer-authentication.js';
import type { ServerAuthentication } from './server-authentication.js';

/** The card's name of the scheme. */
export const JWT_SCHEME_NAME = 'jwt';

/** The algorithms accepted: asymmetric only. */
export const JWT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Options of {@link jwtAuthentication}. */
export interface JwtOptions {
  /** The issuer's JWKS. Either this (with `issuer`) or `oidcIssuer`. */
  readonly jwksUrl?: string | undefined;
  /** An OpenID Connect issuer: its discovery document names the JWKS (and the issuer). */
  readonly oidcIssuer?: string | undefined;
  /** The expected `iss`; default the discovered issuer. */
  readonly issuer?: string | undefined;
  /** The expected `aud` (any one of them). */
  readonly audience: string | readonly string[];
  /** Scopes every token must carry (`scope` claim, space-separated, or `scp` array). */
  readonly scopes?: readonly string[] | undefined;
  /** Tolerated clock skew for `exp`/`nbf`/`iat`, in seconds. Default 30. */
  readonly clockToleranceSeconds?: number | undefined;
  /**
   * The least time between two JWKS fetches, in ms: a token naming a key the cached JWKS lacks
   * makes it fetch the JWKS again (the issuer rotated its keys) only after this long, so that
   * tokens with made-up key ids cannot make this server flood the issuer. Default 30,000.
   */
  readonly jwksCooldownMs?: number | undefined;
  /** The `fetch` for discovery and the JWKS (tests, proxies). Default the global one. */
  readonly fetch?: typeof fetch | undefined;
}

interface Verifier {
  readonly issuer: string;
  readonly keys: JWTVerifyGetKey;
}

function absoluteUrl(option: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new ConfigurationError(`${option} ${JSON.stringify(value)} is not an absolute URL`, {
      cause: error,
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigurationError(`${option} must be an https URL, got ${url.protocol}`);
  }
  return url;
}

function scopesOf(payload: JWTPayload): Set<string> {
  const scopes = new Set<string>();
  if (typeof payload.scope === 'string') {
    for (const scope of payload.scope.split(' ')) if (scope !== '') scopes.add(scope);
  }
  if (Array.isArray(payload.scp)) {
    for (const scope of payload.scp) if (typeof scope === 'string') scopes.add(scope);
  }
  return scopes;
}

type Jose = typeof JoseModule;

let loaded: Promise<Jose> | undefined;

function jose(): Promise<Jose> {
  loaded ??= import('jose');
  return loaded;
}

/** The client-safe reason a token was refused. */
function refusalOf(joseErrors: Jose['errors'], error: unknown): string | undefined {
  if (error instanceof joseErrors.JWTExpired) return 'The token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf':
        return 'The token is not valid yet';
      case 'iss':
        return 'The token was issued by an issuer this agent does not trust';
      case 'aud':
        return 'The token is not meant for this agent (audience)';
      default:
        return `The token's ${error.claim} claim is not valid`;
    }
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return 'The token is signed with an algorithm this agent refuses';
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return 'The token is signed by a key this agent does not know';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'The token signature is not valid';
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid) {
    return 'The token is not a valid JWT';
  }
  if (error instanceof joseErrors.JOSENotSupported)
    return 'The token uses a format this agent does not support';
  return undefined;
}

/**
 * Authentication by JWT.
 *
 * @throws ConfigurationError when neither `jwksUrl` nor `oidcIssuer` is given, or a URL is invalid.
 */
export function jwtAuthentication(options: JwtOptions): ServerAuthentication {
  if ((options.jwksUrl === undefined) === (options.oidcIssuer === undefined)) {
    throw new ConfigurationError(
      'JWT authentication needs either --jwks-url (with --issuer) or --oidc-issuer',
    );
  }
  if (options.jwksUrl !== undefined && options.issuer === undefined) {
    throw new ConfigurationError('JWT authentication with --jwks-url needs --issuer too');
  }
  const audience =
    typeof options.audience === 'string' ? [options.audience] : [...options.audience];
  if (audience.length === 0 || audience.some((a) => a === '')) {
    throw new ConfigurationError('JWT authentication needs a non-empty --audience');
  }
  const scopes = options.scopes ?? [];
  const clockTolerance = options.clockToleranceSeconds ?? 30;
  const fetchFunction = options.fetch ?? globalThis.fetch;
  async function keySet(url: URL): Promise<JWTVerifyGetKey> {
    const { createRemoteJWKSet, customFetch } = await jose();
    const jwksOptions: RemoteJWKSetOptions = {
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      cacheMaxAge: 10 * 60_000,
      timeoutDuration: 5_000,
    };
    if (options.fetch !== undefined) {
      const given = options.fetch;
      const custom: FetchImplementation = (resource, init) => given(resource, init);
      (jwksOptions as Record<symbol, FetchImplementation>)[customFetch] = custom;
    }
    return createRemoteJWKSet(url, jwksOptions);
  }
  const discoveryUrl =
    options.oidcIssuer === undefined
      ? undefined
      : new URL(
          `${absoluteUrl('--oidc-issuer', options.oidcIssuer).href.replace(/\/+$/, '')}/.well-known/openid-configuration`,
        );
  const jwksUrl =
    options.jwksUrl === undefined ? undefined : absoluteUrl('--jwks-url', options.jwksUrl);
  let verifier: Promise<Verifier> | undefined;

  async function discover(url: URL): Promise<Verifier> {
    const response = await fetchFunction(url, { headers: { accept: 'application/json' } });
    if (!response.ok)
      throw new ConfigurationError(
        `OpenID discovery at ${url.href} answered HTTP ${response.status}`,
      );
    const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
    if (typeof document.jwks_uri !== 'string' || typeof document.issuer !== 'string') {
      throw new ConfigurationError(`OpenID discovery at ${url.href} names no issuer and jwks_uri`);
    }
    return {
      issuer: options.issuer ?? document.issuer,
      keys: await keySet(absoluteUrl('jwks_uri', document.jwks_uri)),
    };
  }

  function currentVerifier(): Promise<Verifier> {
    if (verifier === undefined) {
      const found =
        jwksUrl !== undefined
          ? keySet(jwksUrl).then((keys) => ({ issuer: options.issuer as string, keys }))
          : discover(discoveryUrl as URL);
      verifier = found;
      // A failed discovery is retried by the next call, not cached.
      found.catch(() => {
        if (verifier === found) verifier = undefined;
      });
    }
    return verifier;
  }

  const challenge = 'Bearer realm="a2a"';
  const scheme: SecurityScheme =
    options.oidcIssuer === undefined
      ? { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } }
      : { openIdConnectSecurityScheme: { openIdConnectUrl: (discoveryUrl as URL).href } };
  return {
    async authenticate({ headers }) {
      const token = bearerTokenOf(headers.get('authorization'));
      if (token === undefined) {
        return new AuthenticationError(
          'Authentication required: send Authorization: Bearer <JWT>',
          {
            challenges: [challenge],
          },
        );
      }
      const { issuer, keys } = await currentVerifier();
      const { jwtVerify, errors } = await jose();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer,
          audience,
          algorithms: [...JWT_ALGORITHMS],
          clockTolerance,
          requiredClaims: ['sub', 'exp'],
        }));
      } catch (error) {
        const reason = refusalOf(errors, error);
        // Anything else (the JWKS endpoint is down) is this server's problem, not the client's.
        if (reason === undefined) throw error;
        return new AuthenticationError(reason, {
          challenges: [`${challenge}, error="invalid_token"`],
          credentialsPresented: true,
        });
      }
      const granted = scopesOf(payload);
      const missing = scopes.filter((scope) => !granted.has(scope));
      if (missing.length > 0) {
        return new AuthenticationError(`The token lacks the scope(s) ${missing.join(' ')}`, {
          status: 403,
          challenges: [`${challenge}, error="insufficient_scope", scope="${scopes.join(' ')}"`],
          credentialsPresented: true,
        });
      }
      return { id: `${payload.iss ?? issuer}|${payload.sub ?? ''}`, anonymous: false };
    },
    securitySchemes: { [JWT_SCHEME_NAME]: scheme },
    securityRequirements: [{ schemes: { [JWT_SCHEME_NAME]: { list: [...scopes] } } }],
  };
}
