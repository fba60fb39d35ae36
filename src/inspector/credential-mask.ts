/**
 * Credentials never leave the backend: everything the page is shown of the wire (headers, URLs,
 * bodies, commands to copy) goes through a mask first. A header is masked by its name (the usual
 * credential headers, and those the user set) and every text by value (each secret the user
 * entered, as it is and URL-encoded), so that an API key in a query string or a token echoed in
 * a body is hidden too.
 */

/** What replaces a secret. */
export const MASK = '•••';

/** Header names whose values are credentials, whatever the agent. */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'x-a2a-notification-token',
]);

/** The secrets of one connection and the header names that carry them. */
export interface CredentialMask {
  /** A header's value as shown: masked when it is a credential. */
  header(name: string, value: string): string;
  /** Headers as shown, in order. */
  headers(headers: Iterable<readonly [string, string]>): Array<readonly [string, string]>;
  /** A text (URL, body, command) with every secret replaced. */
  text(value: string): string;
  /** Masks `secret` too from now on (a push token handed out later). */
  addSecret(secret: string): void;
}

/** Options of {@link createCredentialMask}. */
export interface CredentialMaskOptions {
  /** The secret values (tokens, keys, header values the user set). */
  readonly secrets?: readonly string[];
  /** Header names that carry secrets besides the usual ones (an API key's header...). */
  readonly headerNames?: readonly string[];
}

/** Shorter values are not masked by value: they would hide ordinary text. */
const MIN_SECRET_LENGTH = 4;

/** Creates the mask of one connection's credentials. */
export function createCredentialMask(options: CredentialMaskOptions = {}): CredentialMask {
  const names = new Set([
    ...CREDENTIAL_HEADERS,
    ...(options.headerNames ?? []).map((n) => n.toLowerCase()),
  ]);
  const forms = new Set<string>();
  let ordered: string[] = [];
  const addSecret = (secret: string): void => {
    if (secret.length < MIN_SECRET_LENGTH) return;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(JSON.stringify(secret).slice(1, -1));
    // Longest first, so that a secret containing another is replaced whole.
    ordered = [...forms].sort((a, b) => b.length - a.length);
  };
  for (const secret of options.secrets ?? []) addSecret(secret);
  const text = (value: string): string => {
    let masked = value;
    for (const form of ordered) masked = masked.split(form).join(MASK);
    return masked;
  };
  const header = (name: string, value: string): string => {
    if (!names.has(name.toLowerCase())) return text(value);
    // Keep the scheme of an Authorization header: "Bearer •••" says which credential went.
    const scheme = /^(Bearer|Basic|Digest|DPoP)\s+/i.exec(value);
    return scheme === null ? MASK : `${scheme[1]} ${MASK}`;
  };
  return {
    header,
    headers: (headers) => [...headers].map(([name, value]) => [name, header(name, value)] as const),
    text,
    addSecret,
  };
}
