/**
 * Options of the A2A HTTP handler, shared by the fetch handler and every adapter, and their
 * resolution: defaults applied and every value checked once at startup, so that a mistake is a
 * {@link ConfigurationError} naming the option instead of a broken request later.
 */

import { jsonRpcBinding } from '../bindings/jsonrpc/jsonrpc-http.js';
import { restBinding } from '../bindings/rest/rest-server.js';
import {
  anonymousAuthenticator,
  type Authenticator,
  type ServerAuthentication,
} from '../bindings/server/authentication.js';
import {
  resolveFailedAuthentications,
  type FailedAuthenticationLimiter,
  type FailedAuthenticationsOption,
} from '../bindings/server/failed-authentication-limiter.js';
import type { ServerBindingFactory } from '../bindings/server/server-binding.js';
import { normalizeUrlPath } from '../bindings/server/url-path.js';
import { createAgentEndpoint, type AgentEndpoint } from '../bindings/server/agent-endpoint.js';
import type { CallLimitsOptions } from '../bindings/server/call-limit-options.js';
import type { CompatLayer } from '../bindings/server/compat-layer.js';
import type { ServerInterceptor } from '../bindings/server/server-interceptor.js';
import type { AgentCard, AgentCardSignature, AgentInterface } from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { integerOption } from '../protocol/integer-option.js';
import { silentLogger, type Logger } from '../runtime/logger.js';
import type { A2ARequestHandler } from '../runtime/request-handler.js';

/** What signs agent cards: `createCardSigner` of `tandem/server` gives one. */
export interface CardSignerLike {
  sign(card: AgentCard): Promise<AgentCardSignature>;
}

/** One agent served by the handler. */
export interface A2AAgentMount {
  /**
   * Where the agent lives: `''` (or `'/'`) for the root, else a path like `/agents/dice`. Its
   * card is served at `<path>/.well-known/agent-card.json`, each binding below it (JSON-RPC at
   * `<path>/a2a` by default).
   */
  readonly path: string;
  readonly handler: A2ARequestHandler;
  /** Overrides {@link A2AHandlerOptions.bindings} for this agent. */
  readonly bindings?: readonly ServerBindingFactory[] | undefined;
  /**
   * Interfaces this agent is served on outside this handler — e.g. gRPC on a port of its own —
   * listed in its card after those of its bindings (unless {@link A2AHandlerOptions.preferredBinding}
   * puts one first). A function receives the base URL the card is served under (from `publicUrl`
   * or the request), so that such an interface can name the host clients reach.
   */
  readonly interfaces?:
    readonly AgentInterface[] | ((baseUrl: string) => readonly AgentInterface[]) | undefined;
  /**
   * A tenant to declare on this agent's interfaces (`AgentInterface.tenant`), which clients then
   * send with every request (spec 4.4.6). Tasks are scoped by the tenant each request names.
   */
  readonly tenant?: string | undefined;
  /** Overrides {@link A2AHandlerOptions.limits} for this agent. */
  readonly limits?: CallLimitsOptions | undefined;
}

/** CORS policy: `'*'` (any origin), a list of allowed origins, or `false` (no CORS headers). */
export type CorsOrigins = '*' | readonly string[] | false;

/** Options of `createA2AHandler` and the adapters. */
export interface A2AHandlerOptions {
  /** The agents to serve; at least one. */
  readonly agents: readonly A2AAgentMount[];
  /**
   * The protocol bindings served for every agent, each declared in the agent card. Default: the
   * JSON-RPC binding at `/a2a` (`jsonRpcBinding()`; `jsonRpcBinding({ path })` puts it elsewhere),
   * then the HTTP+JSON binding at the agent's own path (`restBinding()`).
   */
  readonly bindings?: readonly ServerBindingFactory[] | undefined;
  /**
   * The `protocolBinding` to list first in agent cards (clients that pick the first interface they
   * support then use it), e.g. `'GRPC'`. Default: the order of `bindings`, then `interfaces`.
   * Creation fails with `ConfigurationError` when an agent serves no such binding and declares no
   * `interfaces` that could list it.
   */
  readonly preferredBinding?: string | undefined;
  /**
   * Decides who is calling, once per call, before any binding handles it; the principal scopes
   * every task (see `Authenticator`). Agent cards, `/healthz` and CORS preflights stay open. A
   * {@link ServerAuthentication} also declares its schemes in every agent card
   * (`securitySchemes`, `securityRequirements`), exactly as enforced. Default: every caller is the
   * anonymous principal.
   */
  readonly authenticate?: Authenticator | ServerAuthentication | undefined;
  /**
   * Brute-force protection: a peer address that failed to authenticate (401) more than
   * `maxFailures` times (default 10, regained over `windowSeconds`, default 300) is answered
   * HTTP 429 with `Retry-After`, in the binding's error form, without its credentials being
   * checked. A `FailedAuthenticationLimiter` shares the count with another server (the gRPC one);
   * `false` turns it off. Only with `authenticate`.
   */
  readonly failedAuthentications?: FailedAuthenticationsOption | undefined;
  /**
   * Signs every agent card this handler serves (spec 8.4), once per card version; e.g.
   * `createCardSigner` of `tandem/server`. The signature is appended to the card's `signatures`.
   */
  readonly cardSigner?: CardSignerLike | undefined;
  /**
   * The externally visible URL of the handler's root (e.g. `https://agents.example.com/prefix`),
   * used for the absolute URLs in agent cards. Without it they are derived from each request's
   * `X-Forwarded-Proto` / `X-Forwarded-Host` or `Host` headers.
   */
  readonly publicUrl?: string | undefined;
  /** Largest accepted request body, in bytes. Default 4 MiB. */
  readonly maxBodyBytes?: number | undefined;
  /** Interval of SSE heartbeat comments on idle streams, in ms; 0 disables. Default 15000. */
  readonly heartbeatMs?: number | undefined;
  /** Request log (one `info` line per request) and unexpected errors. Default: silent. */
  readonly logger?: Logger | undefined;
  /**
   * Code around every operation of every agent, on every binding (see `ServerInterceptor`),
   * outermost first.
   */
  readonly interceptors?: readonly ServerInterceptor[] | undefined;
  /**
   * Abuse limits per caller (requests and new tasks per minute, open streams, parts per message;
   * see `CallLimitsOptions`), answered HTTP 429 / gRPC `RESOURCE_EXHAUSTED`, counted per agent.
   * `{}` applies the defaults; absent, none apply (`tandem serve` turns them on by default).
   */
  readonly limits?: CallLimitsOptions | undefined;
  /** `Cache-Control: max-age` of agent cards, in seconds. Default 300. */
  readonly cardMaxAgeSeconds?: number | undefined;
  /** Origins allowed to call the agents from a browser. Default `'*'`. */
  readonly corsOrigins?: CorsOrigins | undefined;
  /**
   * Serves clients of an older protocol version too, e.g. `compatV03()` for A2A 0.3 (see
   * docs/compat-0.3.md). Default: 1.0 only.
   */
  readonly compat?: CompatLayer | undefined;
}

/** Options with defaults applied and values checked. */
export interface ResolvedHttpOptions {
  readonly agents: readonly ResolvedAgentMount[];
  readonly authenticate: Authenticator;
  /** Failed authentications per address; `undefined` for no limit. */
  readonly failedAuthentications: FailedAuthenticationLimiter | undefined;
  /** What the cards declare about authentication; `undefined` when the server enforces none. */
  readonly authentication: ServerAuthentication | undefined;
  readonly preferredBinding: string | undefined;
  readonly cardSigner: CardSignerLike | undefined;
  readonly publicUrl: string | undefined;
  readonly maxBodyBytes: number;
  readonly heartbeatMs: number;
  readonly logger: Logger;
  readonly cardMaxAgeSeconds: number;
  readonly corsOrigins: CorsOrigins;
  readonly compat: CompatLayer | undefined;
}

/** An agent mount with normalized paths. */
export interface ResolvedAgentMount {
  /** `''` for the root, else `/x/y` without a trailing slash. */
  readonly path: string;
  readonly handler: A2ARequestHandler;
  /** The agent's operations through the interceptors and limits. */
  readonly endpoint: AgentEndpoint;
  readonly bindings: readonly ServerBindingFactory[];
  readonly interfaces: (baseUrl: string) => readonly AgentInterface[];
  /** Whether `interfaces` was given: interfaces served outside the handler may exist. */
  readonly external: boolean;
  readonly tenant: string | undefined;
}
/** 4 MiB: far above any real A2A message, small enough that a flood cannot exhaust memory. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** 15 s: below the 30-60 s idle timeouts of common proxies and load balancers. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** 5 minutes: cards change rarely, and a client revalidates cheaply with the ETag. */
export const DEFAULT_CARD_MAX_AGE_SECONDS = 300;

function resolvePublicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new ConfigurationError(
      `publicUrl ${JSON.stringify(value)} is not an absolute URL; use e.g. https://agents.example.com`,
      { cause: error },
    );
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new ConfigurationError(
      `publicUrl ${JSON.stringify(value)} must be an http(s) URL without query or fragment`,
    );
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function interfacesOption(
  option: A2AAgentMount['interfaces'],
): (baseUrl: string) => readonly AgentInterface[] {
  if (typeof option === 'function') return option;
  const fixed = option ?? [];
  return () => fixed;
}

/**
 * Applies defaults and checks every option.
 *
 * @throws ConfigurationError naming the offending option.
 */
export function resolveHttpOptions(options: A2AHandlerOptions): ResolvedHttpOptions {
  if (options.agents.length === 0) {
    throw new ConfigurationError(
      'agents is empty; mount at least one agent: { path: "", handler }',
    );
  }
  const defaultBindings = options.bindings ?? [jsonRpcBinding(), restBinding()];
  const logger = options.logger ?? silentLogger;
  const served = {
    interceptors: options.interceptors ?? [],
    limits: options.limits,
    logger,
  };
  const agents = options.agents.map((agent, index) => {
    const bindings = agent.bindings ?? defaultBindings;
    if (bindings.length === 0 && agent.interfaces === undefined) {
      throw new ConfigurationError(
        `agents[${index}] has no bindings and no interfaces: mount at least one, e.g. jsonRpcBinding()`,
      );
    }
    if (agent.tenant !== undefined && agent.tenant === '') {
      throw new ConfigurationError(`agents[${index}].tenant must not be empty; omit it for none`);
    }
    const path = normalizeUrlPath(`agents[${index}].path`, agent.path);
    return {
      path,
      handler: agent.handler,
      endpoint: createAgentEndpoint(path, agent.handler, {
        ...served,
        limits: agent.limits ?? served.limits,
      }),
      bindings,
      interfaces: interfacesOption(agent.interfaces),
      external: agent.interfaces !== undefined,
      tenant: agent.tenant,
    };
  });
  if (
    options.preferredBinding !== undefined &&
    (typeof options.preferredBinding !== 'string' || options.preferredBinding === '')
  ) {
    throw new ConfigurationError(
      `preferredBinding must be a protocolBinding name such as 'JSONRPC', 'HTTP+JSON' or 'GRPC'; got ${JSON.stringify(options.preferredBinding)}`,
    );
  }
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
    agents,
    authenticate:
      typeof options.authenticate === 'function'
        ? options.authenticate
        : (options.authenticate?.authenticate ?? anonymousAuthenticator),
    authentication: typeof options.authenticate === 'object' ? options.authenticate : undefined,
    failedAuthentications: resolveFailedAuthentications(
      options.failedAuthentications,
      options.authenticate !== undefined,
    ),
    preferredBinding: options.preferredBinding,
    cardSigner: options.cardSigner,
    publicUrl: resolvePublicUrl(options.publicUrl),
    maxBodyBytes: integerOption(
      'maxBodyBytes',
      options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      1,
      'bytes',
    ),
    heartbeatMs: integerOption('heartbeatMs', options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, 0, 'ms'),
    logger,
    cardMaxAgeSeconds: integerOption(
      'cardMaxAgeSeconds',
      options.cardMaxAgeSeconds ?? DEFAULT_CARD_MAX_AGE_SECONDS,
      0,
      'seconds',
    ),
    corsOrigins,
    compat: options.compat,
  };
}
