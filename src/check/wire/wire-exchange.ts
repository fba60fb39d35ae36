/**
 * Requests and responses as the report shows them: the method and URL, the headers with every
 * credential masked, and the start of each body. A report is printed, stored as a CI artifact
 * and shown in a browser, so nothing secret may reach it: credential headers are masked by
 * name, and any value equal to a secret the checker was given is masked wherever it appears (a
 * header the user added, an API key placed in the query).
 */

import type { WireRequest, WireResponse } from '../check-types.js';

/** The longest body excerpt kept in a report. */
const BODY_EXCERPT = 600;

/** What replaces a secret. */
export const MASK = '•••';

/** Headers whose values are credentials whatever they hold. */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]);

/** A request and, when one came, its response. */
export interface Exchange {
  readonly request: WireRequest;
  readonly response?: WireResponse;
}

/**
 * The secrets of one run: names of headers and query parameters that carry credentials, and the
 * secret values themselves.
 */
export class Secrets {
  readonly #names = new Set(CREDENTIAL_HEADERS);
  readonly #values = new Set<string>();

  /** Treats `name` (a header or query parameter) as a credential. */
  addName(name: string): void {
    this.#names.add(name.toLowerCase());
  }

  /** Masks `value` wherever it appears. */
  addValue(value: string): void {
    if (value.length >= 4) this.#values.add(value);
  }

  /** A text with every known secret value replaced. */
  maskText(text: string): string {
    let out = text;
    for (const value of this.#values) out = out.split(value).join(MASK);
    return out;
  }

  /** One header's value as the report shows it. */
  maskHeader(name: string, value: string): string {
    if (!this.#names.has(name.toLowerCase())) return this.maskText(value);
    const scheme = /^(Bearer|Basic|Digest|Token)\s+/i.exec(value);
    return scheme === null ? MASK : `${scheme[1]} ${MASK}`;
  }

  /** Headers as the report shows them, names in lower case. */
  maskHeaders(headers: Iterable<readonly [string, string]>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of headers) {
      const key = name.toLowerCase();
      const shown = this.maskHeader(key, value);
      out[key] = out[key] === undefined ? shown : `${out[key]}, ${shown}`;
    }
    return out;
  }

  /** A URL with credential query parameters masked. */
  maskUrl(url: string): string {
    try {
      const parsed = new URL(url);
      for (const name of [...parsed.searchParams.keys()]) {
        if (this.#names.has(name.toLowerCase())) parsed.searchParams.set(name, MASK);
      }
      return this.maskText(parsed.toString());
    } catch {
      // gRPC targets are `host:port/...`, not URLs; they carry no query.
      return this.maskText(url);
    }
  }
}

/** The start of a body, as received (line breaks kept, so that framing shows). */
export function bodyExcerpt(text: string): string {
  return text.length > BODY_EXCERPT ? `${text.slice(0, BODY_EXCERPT)}…` : text;
}

/** A short excerpt on one line, for a check's detail. */
export function inlineExcerpt(text: string, length = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty)';
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}

/** Builds the request excerpt of an exchange. */
export function wireRequest(
  secrets: Secrets,
  init: {
    method: string;
    url: string;
    headers: Iterable<readonly [string, string]>;
    body?: string | undefined;
  },
): WireRequest {
  const request: WireRequest = {
    method: init.method,
    url: secrets.maskUrl(init.url),
    headers: secrets.maskHeaders(init.headers),
  };
  return init.body === undefined
    ? request
    : { ...request, body: secrets.maskText(bodyExcerpt(init.body)) };
}

/** Builds the response excerpt of an exchange. */
export function wireResponse(
  secrets: Secrets,
  init: {
    status: string;
    headers: Iterable<readonly [string, string]>;
    body?: string | undefined;
  },
): WireResponse {
  const response: WireResponse = {
    status: init.status,
    headers: secrets.maskHeaders(init.headers),
  };
  return init.body === undefined
    ? response
    : { ...response, body: secrets.maskText(bodyExcerpt(init.body)) };
}
