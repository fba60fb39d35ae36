/**
 * How long a fetched agent card may be reused without asking the server again (spec 8.6.2, RFC
 * 9111 for a private cache): `Cache-Control: no-store` keeps nothing, `no-cache` keeps the card but
 * revalidates it every time, `max-age` (less the `Age` already spent in caches on the way) or else
 * `Expires` set the freshness lifetime, and a response without any of them gets the resolver's
 * default lifetime. A stale card with an `ETag` is revalidated with `If-None-Match`.
 */

/** What to do with a card response. */
export interface CardFreshness {
  /** `false` for `no-store`: do not keep the card (and forget an older one). */
  readonly store: boolean;
  /** The instant (ms since the epoch) after which the card must be revalidated. */
  readonly expiresAt: number;
}

/** The directives of a `Cache-Control` value, by lower-case name (`max-age` → `"300"`). */
export function parseCacheControl(value: string | null): Map<string, string> {
  const directives = new Map<string, string>();
  if (value === null) return directives;
  for (const part of value.split(',')) {
    const [rawName = '', ...rest] = part.split('=');
    const name = rawName.trim().toLowerCase();
    if (name === '') continue;
    directives.set(
      name,
      rest
        .join('=')
        .trim()
        .replace(/^"(.*)"$/, '$1'),
    );
  }
  return directives;
}

function seconds(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The freshness of a response received at `now`.
 *
 * @param defaultLifetimeMs the lifetime of a response without caching headers.
 */
export function cardFreshness(
  headers: Headers,
  now: number,
  defaultLifetimeMs: number,
): CardFreshness {
  const directives = parseCacheControl(headers.get('cache-control'));
  if (directives.has('no-store')) return { store: false, expiresAt: now };
  if (directives.has('no-cache')) return { store: true, expiresAt: now };
  const maxAge = seconds(directives.get('max-age'));
  if (maxAge !== undefined) {
    const age = seconds(headers.get('age') ?? undefined) ?? 0;
    return { store: true, expiresAt: now + Math.max(0, maxAge - age) * 1000 };
  }
  const expires = headers.get('expires');
  if (expires !== null) {
    const expiry = Date.parse(expires);
    const date = Date.parse(headers.get('date') ?? '');
    // An invalid Expires (e.g. "0") means already expired (RFC 9111 5.3).
    if (Number.isNaN(expiry)) return { store: true, expiresAt: now };
    return {
      store: true,
      expiresAt: now + Math.max(0, expiry - (Number.isNaN(date) ? now : date)),
    };
  }
  return { store: true, expiresAt: now + defaultLifetimeMs };
}
