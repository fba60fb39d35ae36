/**
 * Options of the A2A HTTP server, shared by the fetch handler and every adapter: the server's
 * core (`ServerCoreOptions`: agents, authentication, interceptors, limits, logger, public URL,
 * compat — shared with gRPC, see `bindings/server/server-options.ts`) and what only HTTP has
 * (bindings, card signing and caching, body size, heartbeats, CORS). Resolved once at startup, so
 * that a mistake is a {@link ConfigurationError} naming the option instead of a broken request
 * later.
 */

import { jsonRpcBinding } from '../bindings/jsonrpc/jsonrpc-http.js';
import { restBinding } from '../bindings/rest/rest-server.js';
import type { ServerBindingFactory } from '../bindings/server/server-binding.js';
import type { ServerCoreOptions } from '../bindings/server/server-options.js';
import type { AgentCard, AgentCardSignature } from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { integerOption } from '../protocol/integer-option.js';

export type { A2AAgentMount } from '../bindings/server/server-options.js';

/** What signs agent cards: `createCardSigner` of `tandem/server` gives one. */
export interface CardSignerLike {
  sign(card: AgentCard): Promise<AgentCardSignature>;
}

/** CORS policy: `'*'` (any origin), a list of allowed origins, or `false` (no CORS headers). */
export type CorsOrigins = '*' | readonly string[] | false;

/** What only the HTTP listener has. */
export interface HttpOptions {
  /**
   * The protocol bindings served for every agent, each declared in the agent card. Default: the
   * JSON-RPC binding at `/a2a` (`jsonRpcBinding()`; `jsonRpcBinding({ path })` puts it elsewhere),
   * then the HTTP+JSON binding at the agent's own path (`restBinding()`).
   */
  readonly bindings?: readonly ServerBindingFactory[] | undefined;
  /**
   * Signs every agent card this server serves (spec 8.4), once per card version; e.g.
   * `createCardSigner` of `tandem/server`. The signature is appended to the card's `signatures`.
   */
  readonly cardSigner?: CardSignerLike | undefined;
  /** Largest accepted request body, in bytes. Default 4 MiB. */
  readonly maxBodyBytes?: number | undefined;
  /** Interval of SSE heartbeat comments on idle streams, in ms; 0 disables. Default 15000. */
  readonly heartbeatMs?: number | undefined;
  /** `Cache-Control: max-age` of agent cards, in seconds. Default 300. */
  readonly cardMaxAgeSeconds?: number | undefined;
  /** Origins allowed to call the agents from a browser. Default `'*'`. */
  readonly corsOrigins?: CorsOrigins | undefined;
  /**
   * Serves `GET /metrics` (Prometheus text, `text/plain; version=0.0.4`) with what this returns:
   * `telemetry.metricsText` of `startTelemetry({ prometheus: true })` (`tandem/otel`). Like
   * `/healthz`, it is not authenticated: expose the port only to the scraper, or serve the
   * metrics on a port of their own (`prometheus: { port }`).
   */
  readonly metrics?: (() => Promise<string>) | undefined;
}

/** Options of `createA2AHandler` and the adapters: the server's core and HTTP's own. */
export interface A2AHandlerOptions extends ServerCoreOptions, HttpOptions {}

/** HTTP's own options with defaults applied and values checked. */
export interface ResolvedHttpOptions {
  readonly bindings: readonly ServerBindingFactory[];
  readonly cardSigner: CardSignerLike | undefined;
  readonly maxBodyBytes: number;
  readonly heartbeatMs: number;
  readonly cardMaxAgeSeconds: number;
  readonly corsOrigins: CorsOrigins;
  readonly metrics: (() => Promise<string>) | undefined;
}

/** 4 MiB: far above any real A2A message, small enough that a flood cannot exhaust memory. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** 15 s: below the 30-60 s idle timeouts of common proxies and load balancers. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** 5 minutes: cards change rarely, and a client revalidates cheaply with the ETag. */
export const DEFAULT_CARD_MAX_AGE_SECONDS = 300;

/**
 * Applies defaults and checks HTTP's own options.
 *
 * @throws ConfigurationError naming the offending option.
 */
export function resolveHttpOptions(options: HttpOptions): ResolvedHttpOptions {
  const corsOrigins = options.corsOrigins ?? '*';
  if (Array.isArray(corsOrigins)) {
    for (const origin of corsOrigins as readonly string[]) {
      if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
        throw new ConfigurationError(
          `corsOrigins entry ${JSON.stringify(origin)} is not an origin; use e.g. 'https://app.example.com' (no path, no trailing slash)`,
        );
      }
    }
  }
  return {
    bindings: options.bindings ?? [jsonRpcBinding(), restBinding()],
    cardSigner: options.cardSigner,
    maxBodyBytes: integerOption(
      'maxBodyBytes',
      options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      1,
      'bytes',
    ),
    heartbeatMs: integerOption('heartbeatMs', options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, 0, 'ms'),
    cardMaxAgeSeconds: integerOption(
      'cardMaxAgeSeconds',
      options.cardMaxAgeSeconds ?? DEFAULT_CARD_MAX_AGE_SECONDS,
      0,
      'seconds',
    ),
    corsOrigins,
    metrics: options.metrics,
  };
}
