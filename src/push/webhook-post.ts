/**
 * One webhook POST: the request, its redirects and what its outcome means for the delivery.
 *
 * - The socket's address comes from {@link guardedLookup} (checked when dialled); an address
 *   literal is checked before the request. Redirects (301, 302, 303, 307, 308) are followed at
 *   most {@link MAX_REDIRECTS} times, re-POSTing the same body, each target checked the same way;
 *   the credentials go only to the origin they were configured for.
 * - At most {@link SOCKETS_PER_ORIGIN} attempts per origin are in flight ({@link OriginGate});
 *   the timeout of an attempt runs from its turn.
 * - Outcome: 2xx delivered; network errors, timeouts, 408, 429 and 5xx retryable (with the
 *   `Retry-After` delay when given); any other status, too many redirects or a refused
 *   destination permanent.
 */

import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import type * as NodeHttps from 'node:https';
import { createRequire } from 'node:module';
import type { DestinationPolicy } from './destination-policy.js';
import { DestinationRefusedError, guardedLookup, type HostResolver } from './guarded-lookup.js';
import { OriginGate, type GateRelease } from './origin-gate.js';
import { retryAfterMs } from './retry-timing.js';

/** Redirects followed per delivery attempt. */
export const MAX_REDIRECTS = 3;

/** What one attempt came to. */
export type WebhookOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'retry'; readonly reason: string; readonly retryAfterMs?: number }
  | { readonly kind: 'permanent'; readonly reason: string };

/** The request to make. Header values may hold credentials: they are never logged. */
export interface WebhookRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Headers sent to the configured origin only (credentials). */
  readonly credentialHeaders: Readonly<Record<string, string>>;
}

/** How requests are made. */
export interface WebhookClient {
  readonly policy: DestinationPolicy;
  readonly resolver: HostResolver;
  readonly timeoutMs: number;
}

/** Attempts in flight per origin, and the sockets the pools keep per origin. */
const SOCKETS_PER_ORIGIN = 256;

/** Keep-alive connection pools and the queue in front of them, shared by every delivery of a process. */
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: SOCKETS_PER_ORIGIN });
const gate = new OriginGate(SOCKETS_PER_ORIGIN);
let https: { readonly request: typeof NodeHttps.request; readonly agent: NodeHttps.Agent };

/**
 * node:https, loaded at the first https delivery: loading it (and TLS) costs a few ms that a
 * server's start-up should not pay.
 */
function httpsClient(): typeof https {
  if (https === undefined) {
    const module = createRequire(import.meta.url)('node:https') as typeof NodeHttps;
    https = {
      request: module.request,
      agent: new module.Agent({ keepAlive: true, maxSockets: SOCKETS_PER_ORIGIN }),
    };
  }
  return https;
}

/** POSTs `request.body` and classifies the outcome; never rejects. `stop` abandons it. */
export async function postWebhook(
  client: WebhookClient,
  request: WebhookRequest,
  stop?: AbortSignal,
): Promise<WebhookOutcome> {
  const origin = new URL(request.url).origin;
  let url = request.url;
  let timeout: AbortSignal | undefined;
  let signal: AbortSignal | undefined;
  for (let hop = 0; ; hop++) {
    const checked = client.policy.checkUrl(url);
    if (typeof checked === 'string') {
      return {
        kind: 'permanent',
        reason: `the webhook URL ${hop === 0 ? '' : 'redirected to '}${checked}`,
      };
    }
    const headers = {
      ...request.headers,
      ...(checked.url.origin === origin ? request.credentialHeaders : {}),
      'content-length': String(Buffer.byteLength(request.body)),
    };
    let release: GateRelease;
    try {
      release = await gate.enter(checked.url.origin, stop);
    } catch {
      return { kind: 'retry', reason: 'delivery stopped before its attempt' };
    }
    // The timeout runs from the attempt's first turn (redirects included), not while it waited.
    timeout ??= AbortSignal.timeout(client.timeoutMs);
    signal ??= stop === undefined ? timeout : AbortSignal.any([timeout, stop]);
    let response: IncomingMessage;
    try {
      response = await send(
        client,
        checked.url,
        !checked.allowedByName,
        headers,
        request.body,
        signal,
      );
    } catch (error) {
      return failureOf(error, timeout, client.timeoutMs);
    } finally {
      release();
    }
    const status = response.statusCode ?? 0;
    // The body is not needed; reading it to the end lets the connection be reused.
    response.resume();
    const location = response.headers.location;
    if ([301, 302, 303, 307, 308].includes(status) && location !== undefined) {
      if (hop >= MAX_REDIRECTS) {
        return { kind: 'permanent', reason: `more than ${MAX_REDIRECTS} redirects` };
      }
      try {
        url = new URL(location, checked.url).href;
      } catch {
        return { kind: 'permanent', reason: `HTTP ${status} to an invalid Location` };
      }
      continue;
    }
    if (status >= 200 && status < 300) return { kind: 'delivered', status };
    if (status === 408 || status === 429 || status >= 500) {
      const after = retryAfterMs(response.headers['retry-after'], Date.now());
      return after === undefined
        ? { kind: 'retry', reason: `HTTP ${status}` }
        : { kind: 'retry', reason: `HTTP ${status}`, retryAfterMs: after };
    }
    return { kind: 'permanent', reason: `HTTP ${status}` };
  }
}

function send(
  client: WebhookClient,
  url: URL,
  checked: boolean,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:' ? httpsClient() : undefined;
    const outgoing = (secure?.request ?? httpRequest)(url, {
      method: 'POST',
      headers,
      agent: secure?.agent ?? httpAgent,
      lookup: guardedLookup(client.policy, client.resolver, checked),
      signal,
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

function failureOf(error: unknown, signal: AbortSignal, timeoutMs: number): WebhookOutcome {
  if (error instanceof DestinationRefusedError) return { kind: 'permanent', reason: error.message };
  if (signal.aborted) return { kind: 'retry', reason: `no answer within ${timeoutMs} ms` };
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'retry', reason: code === undefined ? message : `${code}: ${message}` };
}
