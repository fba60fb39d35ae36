/**
 * Checking a push config from a request before anything is stored: its URL (form and
 * destination, see `destination-policy.ts`; a host name is resolved and each of its addresses
 * checked, while a name that does not resolve yet is accepted and checked again when dialled),
 * and that its token and credentials can travel in HTTP headers.
 */

import { InvalidParamsError } from '../protocol/errors.js';
import type { FieldViolation } from '../protocol/error-details.js';
import type { TaskPushNotificationConfig } from '../protocol/generated/types.js';
import type { DestinationPolicy } from './destination-policy.js';
import type { HostResolver } from './guarded-lookup.js';

/** Longest accepted URL, token and credentials: larger values are no webhook's. */
const MAX_URL = 4096;
const MAX_SECRET = 4096;
/** RFC 9110 token characters: an authentication scheme. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What an HTTP header value may hold (visible ASCII, spaces and tabs, obs-text). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** How long creation waits for a host name to resolve before accepting it unresolved. */
const RESOLVE_WAIT_MS = 2_000;

/** Throws `InvalidParamsError` naming each bad field under `prefix`. */
export async function checkPushConfig(
  config: TaskPushNotificationConfig,
  prefix: string,
  policy: DestinationPolicy,
  resolver: HostResolver,
): Promise<void> {
  const violations: FieldViolation[] = [];
  const field = (name: string): string => (prefix === '' ? name : `${prefix}.${name}`);
  const bad = (name: string, description: string): void => {
    violations.push({ field: field(name), description });
  };
  if (config.url.length > MAX_URL) bad('url', `must be at most ${MAX_URL} characters`);
  else {
    const checked = policy.checkUrl(config.url);
    if (typeof checked === 'string') bad('url', checked);
    else if (!checked.literal && !checked.allowedByName) {
      const reason = await resolvedReason(checked.host, policy, resolver);
      if (reason !== undefined) bad('url', `${checked.host} resolves to ${reason}`);
    }
  }
  if (config.token !== undefined) checkSecret(config.token, 'token', bad);
  const auth = config.authentication;
  if (auth !== undefined) {
    if (!TOKEN.test(auth.scheme)) {
      bad('authentication.scheme', 'must be an HTTP authentication scheme name, e.g. Bearer');
    }
    if (auth.credentials !== undefined)
      checkSecret(auth.credentials, 'authentication.credentials', bad);
  }
  if (violations.length > 0) throw InvalidParamsError.fromViolations(violations);
}

function checkSecret(value: string, name: string, bad: (name: string, why: string) => void): void {
  if (value.length > MAX_SECRET) bad(name, `must be at most ${MAX_SECRET} characters`);
  // The value itself is never repeated in the error: it is a secret.
  else if (!HEADER_VALUE.test(value))
    bad(name, 'must not contain control characters (it is sent in an HTTP header)');
}

/** Why one of the host's addresses is refused; `undefined` when none is or it does not resolve. */
async function resolvedReason(
  host: string,
  policy: DestinationPolicy,
  resolver: HostResolver,
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), RESOLVE_WAIT_MS);
  });
  try {
    const addresses = await Promise.race([resolver(host), timeout]);
    for (const { address } of addresses ?? []) {
      const reason = policy.checkAddress(address);
      if (reason !== undefined) return reason;
    }
    return undefined;
  } catch {
    // Not resolvable now: accepted, and checked on the address dialled at delivery.
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
