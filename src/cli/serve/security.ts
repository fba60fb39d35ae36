/**
 * The security flags of `tandem serve`: authentication (`--auth`, repeatable: any one method that
 * accepts a call authenticates it) and TLS (`--tls-cert`, `--tls-key`, `--tls-ca`). Each method is
 * one flag away; the card then declares exactly what is enforced. Secrets are read from files or
 * the environment, never from flag values (which `ps` shows).
 */

import { readFileSync } from 'node:fs';
import {
  CredentialList,
  DEFAULT_FAILED_AUTHENTICATION_LIMIT,
  FailedAuthenticationLimiter,
  adminPolicy,
  anyOf,
  apiKeyAuthentication,
  bearerAuthentication,
  jwtAuthentication,
  mtlsAuthentication,
  type A2ATlsOptions,
  type CardSignerOptions,
  type ApiKeyLocation,
  type ServerAuthentication,
  type TaskAccessPolicy,
} from '../../server.js';
import { parseDuration, parsePositiveInteger, UsageFailure } from '../cli-values.js';
import type { ServeOptionGroup } from './option-group.js';
import {
  EXTENDED_CARD_HELP,
  EXTENDED_CARD_OPTIONS,
  parseExtendedCards,
  type ExtendedCards,
} from './extended-card.js';

/** The `parseArgs` options this module reads. */
export const SECURITY_OPTIONS = {
  auth: { type: 'string', multiple: true },
  'token-file': { type: 'string' },
  'api-key-file': { type: 'string' },
  'api-key-header': { type: 'string' },
  'api-key-query': { type: 'string' },
  'api-key-cookie': { type: 'string' },
  'jwks-url': { type: 'string' },
  'oidc-issuer': { type: 'string' },
  issuer: { type: 'string' },
  audience: { type: 'string', multiple: true },
  scope: { type: 'string', multiple: true },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-ca': { type: 'string' },
  'sign-card': { type: 'string' },
  'sign-card-kid': { type: 'string' },
  'sign-card-jku': { type: 'string' },
  admin: { type: 'string', multiple: true },
  'max-auth-failures': { type: 'string' },
  'auth-failure-window': { type: 'string' },
} as const;

/** The help lines of {@link SECURITY_OPTIONS}. */
export const SECURITY_HELP = `Security:
  --auth <method>         bearer | api-key | jwt | mtls; repeat for several (any one that
                          succeeds authenticates; env TANDEM_AUTH, comma-separated). Default: none,
                          every caller is one anonymous principal
  --token-file <path>     Bearer tokens, one per line: TOKEN or NAME TOKEN (env TANDEM_AUTH_TOKENS,
                          comma-separated); re-read on SIGHUP
  --api-key-file <path>   API keys, same format (env TANDEM_API_KEYS); re-read on SIGHUP
  --api-key-header <name> Where clients send the key (default X-API-Key); or --api-key-query <name>
                          or --api-key-cookie <name>
  --jwks-url <url>        JWT: the issuer's JWKS (with --issuer); or --oidc-issuer <url> to discover it
  --issuer <iss>          JWT: the expected iss
  --audience <aud>        JWT: the expected aud (repeatable: any one)
  --scope <scope>         JWT: a scope every token must carry (repeatable)
  --tls-cert <path>       Serve HTTPS with this certificate (PEM), with --tls-key <path>
  --tls-ca <path>         Trust client certificates of this CA (PEM); needed by --auth mtls
  --sign-card <path>      Sign the agent cards with this private key (PEM; tandem keygen writes
                          one): ES256, RS256 or EdDSA, over the RFC 8785 form (spec 8.4)
  --sign-card-kid <kid>   The key id the signatures name (default: the key's RFC 7638 thumbprint)
  --sign-card-jku <url>   The URL where the public key's JWKS is published, named in signatures
  --admin <principal>     A principal that may read (get, list, subscribe to) every caller's
                          tasks of its tenant, not only its own (repeatable; needs --auth)
  --max-auth-failures <n> Failed authentications one address may make before it is answered 429
                          without its credentials being checked (default ${DEFAULT_FAILED_AUTHENTICATION_LIMIT.maxFailures}; off for none; env
                          TANDEM_MAX_AUTH_FAILURES)
  --auth-failure-window <duration>
                          The time over which an address regains them (default ${DEFAULT_FAILED_AUTHENTICATION_LIMIT.windowSeconds / 60}m)`;

type Values = { readonly [K in keyof typeof SECURITY_OPTIONS]?: unknown };

function text(values: Values, key: keyof typeof SECURITY_OPTIONS): string | undefined {
  const value = values[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function list(values: Values, key: keyof typeof SECURITY_OPTIONS): string[] {
  const value = values[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function readPem(path: string, option: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageFailure(
      `${option} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

/** What the flags configure. */
export interface ServeSecurity {
  readonly authentication: ServerAuthentication | undefined;
  readonly tls: A2ATlsOptions | undefined;
  /** The secret lists to re-read on SIGHUP. */
  readonly reloadable: readonly CredentialList[];
  /** How to sign the cards, if they are signed. */
  readonly cardSigning: CardSignerOptions | undefined;
  /** Who may read more than their own tasks (`--admin`). */
  readonly accessPolicy: TaskAccessPolicy | undefined;
  /**
   * Failed authentications per address, one limiter for the HTTP and the gRPC server; `false`
   * for none (`--max-auth-failures off`), `undefined` without authentication.
   */
  readonly failedAuthentications: FailedAuthenticationLimiter | false | undefined;
}

const METHODS = ['bearer', 'api-key', 'jwt', 'mtls'] as const;
type Method = (typeof METHODS)[number];

function credentials(path: string | undefined, variable: string, option: string): CredentialList {
  const env = process.env[variable];
  if (path !== undefined) return new CredentialList({ kind: 'file', path });
  if (env !== undefined && env !== '')
    return new CredentialList({ kind: 'env', variable, env: process.env });
  throw new UsageFailure(`${option} <path> (or the environment variable ${variable}) is required`);
}

function apiKeyPlace(values: Values): { location: ApiKeyLocation; name: string } {
  const places = (
    [
      ['header', text(values, 'api-key-header')],
      ['query', text(values, 'api-key-query')],
      ['cookie', text(values, 'api-key-cookie')],
    ] as const
  ).filter((entry): entry is readonly [ApiKeyLocation, string] => entry[1] !== undefined);
  if (places.length > 1) {
    throw new UsageFailure('Give one of --api-key-header, --api-key-query, --api-key-cookie');
  }
  const [location, name] = places[0] ?? ['header', 'X-API-Key'];
  return { location, name };
}

/**
 * Reads the security flags.
 *
 * @throws UsageFailure (or ConfigurationError from a credentials file) naming what is wrong.
 */
export function parseServeSecurity(values: Values): ServeSecurity {
  const fromEnv = (process.env.TANDEM_AUTH ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const requested = list(values, 'auth').length > 0 ? list(values, 'auth') : fromEnv;
  const methods = [...new Set(requested)];
  for (const method of methods) {
    if (!(METHODS as readonly string[]).includes(method)) {
      throw new UsageFailure(`--auth must be one of ${METHODS.join(', ')}, got "${method}"`);
    }
  }
  const cert = text(values, 'tls-cert');
  const key = text(values, 'tls-key');
  const ca = text(values, 'tls-ca');
  if ((cert === undefined) !== (key === undefined)) {
    throw new UsageFailure('--tls-cert and --tls-key go together');
  }
  if (ca !== undefined && cert === undefined) {
    throw new UsageFailure('--tls-ca needs --tls-cert and --tls-key (mutual TLS runs over HTTPS)');
  }
  const tls: A2ATlsOptions | undefined =
    cert === undefined || key === undefined
      ? undefined
      : {
          cert: readPem(cert, '--tls-cert'),
          key: readPem(key, '--tls-key'),
          ...(ca === undefined ? {} : { ca: readPem(ca, '--tls-ca') }),
        };
  const reloadable: CredentialList[] = [];
  const built = (methods as Method[]).map((method): ServerAuthentication => {
    switch (method) {
      case 'bearer': {
        const tokens = credentials(
          text(values, 'token-file'),
          'TANDEM_AUTH_TOKENS',
          '--token-file',
        );
        reloadable.push(tokens);
        return bearerAuthentication(tokens);
      }
      case 'api-key': {
        const keys = credentials(text(values, 'api-key-file'), 'TANDEM_API_KEYS', '--api-key-file');
        reloadable.push(keys);
        return apiKeyAuthentication({ keys, ...apiKeyPlace(values) });
      }
      case 'jwt': {
        const audience = list(values, 'audience');
        if (audience.length === 0) throw new UsageFailure('--auth jwt needs --audience <aud>');
        const jwksUrl = text(values, 'jwks-url');
        const oidcIssuer = text(values, 'oidc-issuer');
        const issuer = text(values, 'issuer');
        return jwtAuthentication({
          audience,
          scopes: list(values, 'scope'),
          ...(jwksUrl === undefined ? {} : { jwksUrl }),
          ...(oidcIssuer === undefined ? {} : { oidcIssuer }),
          ...(issuer === undefined ? {} : { issuer }),
        });
      }
      case 'mtls':
        if (tls?.ca === undefined) {
          throw new UsageFailure('--auth mtls needs --tls-cert, --tls-key and --tls-ca');
        }
        return mtlsAuthentication();
    }
  });
  const signingKey = text(values, 'sign-card');
  const kid = text(values, 'sign-card-kid');
  const jku = text(values, 'sign-card-jku');
  if (signingKey === undefined && (kid !== undefined || jku !== undefined)) {
    throw new UsageFailure('--sign-card-kid and --sign-card-jku need --sign-card <private key>');
  }
  const admins = list(values, 'admin');
  if (admins.length > 0 && built.length === 0) {
    throw new UsageFailure('--admin needs --auth: without it every caller is anonymous');
  }
  return {
    accessPolicy: admins.length === 0 ? undefined : adminPolicy(admins),
    failedAuthentications: parseFailedAuthentications(values, built.length > 0),
    authentication: built.length === 0 ? undefined : anyOf(...built),
    tls,
    reloadable,
    cardSigning:
      signingKey === undefined
        ? undefined
        : {
            privateKey: readPem(signingKey, '--sign-card'),
            ...(kid === undefined ? {} : { kid }),
            ...(jku === undefined ? {} : { jku }),
          },
  };
}

/**
 * `--max-auth-failures` and `--auth-failure-window`: on with the library's defaults whenever
 * authentication is.
 *
 * @throws UsageFailure for a value that is not a whole number (or `off`), or a window under 1 s.
 */
function parseFailedAuthentications(
  values: Values,
  authenticated: boolean,
): FailedAuthenticationLimiter | false | undefined {
  const flag = text(values, 'max-auth-failures');
  const max = flag ?? process.env.TANDEM_MAX_AUTH_FAILURES;
  const window = text(values, 'auth-failure-window');
  if (!authenticated) {
    if (flag !== undefined || window !== undefined) {
      throw new UsageFailure(
        '--max-auth-failures and --auth-failure-window need --auth: without it nobody can fail',
      );
    }
    return undefined;
  }
  if (max === 'off') {
    if (window !== undefined) {
      throw new UsageFailure('--auth-failure-window has no effect with --max-auth-failures off');
    }
    return false;
  }
  const windowMs =
    window === undefined
      ? undefined
      : parseDuration(window, '--auth-failure-window', { minMs: 1000 });
  return new FailedAuthenticationLimiter({
    ...(max === undefined || max === ''
      ? {}
      : { maxFailures: parsePositiveInteger(max, '--max-auth-failures') }),
    ...(windowMs === undefined ? {} : { windowSeconds: Math.round(windowMs / 1000) }),
  });
}

/** Authentication, TLS, card signing and access, and the extended cards. */
export const SECURITY_GROUP = {
  options: { ...SECURITY_OPTIONS, ...EXTENDED_CARD_OPTIONS },
  help: `${SECURITY_HELP}\n${EXTENDED_CARD_HELP}`,
  parse: (values, context) => ({
    ...parseServeSecurity(values),
    extendedCards: parseExtendedCards(values['extended-card'], context.agents),
  }),
} satisfies ServeOptionGroup<
  Values & { readonly 'extended-card'?: string[] | undefined },
  ServeSecurity & { readonly extendedCards: ExtendedCards }
>;
