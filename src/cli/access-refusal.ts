/**
 * What to tell a user the agent turned away before it looked at the call — HTTP 401, 403 or 429,
 * on any binding (gRPC's UNAUTHENTICATED, PERMISSION_DENIED and RESOURCE_EXHAUSTED arrive as the
 * same statuses) — and what to warn about before a call that the card says needs a credential
 * none was given for. The words are the same on every binding, and they name the flag or the
 * environment variable that supplies the credential, never the credential itself.
 */

import type { ClientOptions, HttpStatusError } from '../client.js';
import type { AgentCard, SecurityScheme } from '../index.js';

/** Which credentials the command line supplied. */
export interface GivenCredentials {
  readonly bearerToken: boolean;
  readonly apiKey: boolean;
  readonly certificate: boolean;
}

/** What the call knew when it was refused: the credentials given, the card once fetched. */
export interface CallSituation {
  readonly given: GivenCredentials;
  card?: AgentCard | undefined;
}

/** A kind of credential and how to pass it. */
interface CredentialKind {
  /** E.g. "a bearer token". */
  readonly noun: string;
  /** E.g. "pass --token-file PATH or set TANDEM_TOKEN". */
  readonly how: string;
  readonly given: (given: GivenCredentials) => boolean;
}

const BEARER: CredentialKind = {
  noun: 'a bearer token',
  how: 'pass --token-file PATH or set TANDEM_TOKEN',
  given: (given) => given.bearerToken,
};
const API_KEY: CredentialKind = {
  noun: 'an API key',
  how: 'pass --api-key-file PATH or set TANDEM_API_KEY',
  given: (given) => given.apiKey,
};
const CERTIFICATE: CredentialKind = {
  noun: 'a client certificate',
  how: 'pass --cert PATH --key PATH',
  given: (given) => given.certificate,
};
const BASIC: CredentialKind = {
  noun: 'HTTP Basic credentials',
  how: "pass --header 'Authorization: Basic …'",
  given: () => false,
};

/** The credentials supplied by client options built from the command line. */
export function givenCredentials(options: ClientOptions): GivenCredentials {
  const headers = Object.keys(options.headers ?? {}).map((name) => name.toLowerCase());
  return {
    bearerToken: options.auth?.bearerToken !== undefined || headers.includes('authorization'),
    apiKey: options.auth?.apiKey !== undefined,
    certificate: options.tls?.cert !== undefined,
  };
}

function kindOf(scheme: SecurityScheme | undefined): CredentialKind {
  if (scheme?.apiKeySecurityScheme !== undefined) return API_KEY;
  if (scheme?.mtlsSecurityScheme !== undefined) return CERTIFICATE;
  if (scheme?.httpAuthSecurityScheme !== undefined) {
    return scheme.httpAuthSecurityScheme.scheme.toLowerCase() === 'basic' ? BASIC : BEARER;
  }
  // HTTP bearer, OAuth 2.0 and OpenID Connect all travel as a bearer token.
  return BEARER;
}

/**
 * The credential kinds a card asks for, one per alternative requirement (the first scheme of
 * each), without repeats; empty when the card asks for none.
 */
function requiredKinds(card: AgentCard | undefined): CredentialKind[] {
  const kinds: CredentialKind[] = [];
  for (const requirement of card?.securityRequirements ?? []) {
    const [name] = Object.keys(requirement.schemes ?? {});
    if (name === undefined) continue;
    const kind = kindOf(card?.securitySchemes?.[name]);
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  return kinds;
}

/** The server's own words in a refusal's body (a JSON error's message), shortened. */
function serverReason(error: HttpStatusError): string | undefined {
  // gRPC has no body: the status details follow "gRPC status X from <where>: ".
  const details = /^gRPC status \S+ from .*?: (.+)$/s.exec(error.message)?.[1];
  let body: unknown;
  try {
    body =
      details === undefined ? (JSON.parse(error.body) as unknown) : { error: { message: details } };
  } catch {
    return undefined;
  }
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  if (typeof message !== 'string' || message.trim() === '') return undefined;
  const text = message.replace(/\s+/g, ' ').trim();
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

function needed(kinds: readonly CredentialKind[]): string {
  return kinds.map((kind) => kind.noun).join(' or ');
}

function howTo(kinds: readonly CredentialKind[]): string {
  const [first, ...others] = kinds;
  const rest = others.map((kind) => kind.how.replace(/^pass /, '')).join('; or ');
  return `${first?.how ?? BEARER.how}${rest === '' ? '' : `; or ${rest}`}`;
}

/**
 * The line for a call the agent refused with 401, 403 or 429; undefined for any other status.
 * Says what the agent wants and the flag or variable that supplies it.
 */
export function refusalMessage(
  error: HttpStatusError,
  situation: CallSituation | undefined,
): string | undefined {
  const reason = serverReason(error);
  const said = reason === undefined ? '' : ` ("${reason}")`;
  switch (error.status) {
    case 401: {
      const asked = requiredKinds(situation?.card);
      const kinds = asked.length === 0 ? [BEARER] : asked;
      const sent =
        situation === undefined ? [] : kinds.filter((kind) => kind.given(situation.given));
      if (sent.length > 0) {
        return `the agent refused ${needed(sent).replace(/\ban? /g, 'the ')} (HTTP 401)${said}; check the credential, or ${howTo(sent)} with a valid one`;
      }
      return `the agent requires ${needed(kinds)} (HTTP 401); ${howTo(kinds)}`;
    }
    case 403:
      return `the agent does not allow this caller to do this (HTTP 403)${said}; use a credential with that permission`;
    case 429: {
      const wait = error.retryAfter?.trim();
      const after =
        wait === undefined || wait === ''
          ? 'later'
          : /^\d+$/.test(wait)
            ? `in ${wait}s`
            : `after ${wait}`;
      return `the agent limits how often this caller may call (HTTP 429)${said}; try again ${after}`;
    }
    default:
      return undefined;
  }
}

/**
 * The warning before a call to an agent whose card requires a credential when the command line
 * gave none of the kinds it accepts; undefined when nothing is missing.
 */
export function missingCredentialWarning(
  card: AgentCard,
  given: GivenCredentials,
): string | undefined {
  const kinds = requiredKinds(card);
  if (kinds.length === 0 || kinds.some((kind) => kind.given(given))) return undefined;
  return `the agent's card requires ${needed(kinds)} and none was given; ${howTo(kinds)}`;
}
