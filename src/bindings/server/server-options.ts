/**
 * The options every listener of a server shares — the agents and their mounts, authentication,
 * interceptors, limits, the logger, the public URL, 0.3 compatibility, the binding cards list
 * first — and their resolution into one {@link ServerCore}: checked once, with one wording for
 * each mistake, whichever listener serves them. The HTTP server and the gRPC server are listeners
 * over a core: given their options alone they make one of their own; `createA2AServer` gives both
 * the same one, so that they share the agents' chains (interceptors and limits count a call once,
 * whichever door it came through), the failed-authentication limiter, and the interfaces each
 * agent's cards list, in both directions.
 */

import type { AgentInterface } from '../../protocol/generated/types.js';
import { ConfigurationError } from '../../protocol/local-errors.js';
import { silentLogger, type Logger } from '../../runtime/logger.js';
import type { A2ARequestHandler } from '../../runtime/request-handler.js';
import { createAgentEndpoint, type AgentEndpoint } from './agent-endpoint.js';
import {
  anonymousAuthenticator,
  type Authenticator,
  type IdentityCheck,
  type ServerAuthentication,
} from './authentication.js';
import type { CallLimitsOptions } from './call-limit-options.js';
import type { CompatLayer } from './compat-layer.js';
import {
  resolveFailedAuthentications,
  type FailedAuthenticationLimiter,
  type FailedAuthenticationsOption,
} from './failed-authentication-limiter.js';
import type { ServerBindingFactory } from './server-binding.js';
import type { ServerInterceptor } from './server-interceptor.js';
import { telemetryInterceptor, type ServerTelemetryOptions } from './telemetry-interceptor.js';
import { normalizeUrlPath } from './url-path.js';

/** One agent served by the server. */
export interface A2AAgentMount {
  /**
   * Where the agent lives: `''` (or `'/'`) for the root, else a path like `/agents/dice`. Its
   * card is served at `<path>/.well-known/agent-card.json`, each HTTP binding below it (JSON-RPC
   * at `<path>/a2a` by default); on a gRPC port several agents share, it is the tenant that routes
   * to the agent (without its leading slash) unless the mount declares one.
   */
  readonly path: string;
  readonly handler: A2ARequestHandler;
  /** Overrides the HTTP server's `bindings` for this agent. */
  readonly bindings?: readonly ServerBindingFactory[] | undefined;
  /**
   * Interfaces this agent is served on outside this server — another process, a gateway —
   * listed in its cards after those of the server's own listeners (unless `preferredBinding`
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
  /** Overrides {@link ServerCoreOptions.limits} for this agent. */
  readonly limits?: CallLimitsOptions | undefined;
}

/** What every listener of one server shares. */
export interface ServerCoreOptions {
  /** The agents to serve; at least one. */
  readonly agents: readonly A2AAgentMount[];
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
   * HTTP 429 with `Retry-After` (gRPC `RESOURCE_EXHAUSTED`), in the binding's error form, without
   * its credentials being checked. A `FailedAuthenticationLimiter` shares the count with another
   * server; `false` turns it off. Only with `authenticate`.
   */
  readonly failedAuthentications?: FailedAuthenticationsOption | undefined;
  /**
   * Code around every operation of every agent, on every binding (see `ServerInterceptor`),
   * outermost first.
   */
  readonly interceptors?: readonly ServerInterceptor[] | undefined;
  /**
   * OpenTelemetry spans and metrics of every call (docs/observability.md), through
   * `@opentelemetry/api`: a no-op until the application registers an SDK. On by default, as the
   * outermost interceptor; `false` leaves it out.
   */
  readonly telemetry?: ServerTelemetryOptions | false | undefined;
  /**
   * Abuse limits per caller (requests and new tasks per minute, open streams, parts per message;
   * see `CallLimitsOptions`), answered HTTP 429 / gRPC `RESOURCE_EXHAUSTED`, counted per agent on
   * every binding. `{}` applies the defaults; absent, none apply (`tandem serve` turns them on).
   */
  readonly limits?: CallLimitsOptions | undefined;
  /** The request log (one `info` line per call) and unexpected errors. Default: silent. */
  readonly logger?: Logger | undefined;
  /**
   * The externally visible URL of the server's HTTP root (e.g.
   * `https://agents.example.com/prefix`), for the absolute URLs in agent cards, and the host of
   * its gRPC interfaces. Without it they are derived from each request's `X-Forwarded-Proto` /
   * `X-Forwarded-Host` or `Host` headers.
   */
  readonly publicUrl?: string | undefined;
  /**
   * Serves clients of an older protocol version too, on every binding: e.g. `compatV03()` of
   * `tandem/server/compat` for A2A 0.3 (see docs/compat-0.3.md). Default: 1.0 only.
   */
  readonly compat?: CompatLayer | undefined;
  /**
   * The `protocolBinding` to list first in agent cards (clients that pick the first interface they
   * support then use it), e.g. `'GRPC'`. Default: the HTTP bindings in their order, then gRPC,
   * then the mounts' `interfaces`. Creation fails with `ConfigurationError` when an agent serves
   * no such binding and declares no `interfaces` that could list it.
   */
  readonly preferredBinding?: string | undefined;
}

/** An agent as the core resolved it. */
export interface ServedMount {
  /** `''` for the root, else `/x/y` without a trailing slash. */
  readonly path: string;
  readonly handler: A2ARequestHandler;
  readonly tenant: string | undefined;
  /** The mount's own HTTP bindings, if it names any. */
  readonly bindings: readonly ServerBindingFactory[] | undefined;
  /** The agent's operations through the interceptors and limits. */
  readonly endpoint: AgentEndpoint;
  /** The interfaces served outside the server (the mount's `interfaces`). */
  readonly external: (baseUrl: string) => readonly AgentInterface[];
  /** Whether the mount declares such interfaces: one may list the preferred binding. */
  readonly hasExternal: boolean;
}

/** A listener's part in the agents' cards: the interfaces it serves each agent on. */
export interface InterfaceSource {
  /** The interfaces of `mount` under `baseUrl`, in their order. */
  interfacesOf(mount: ServedMount, baseUrl: string): AgentInterface[];
  /** The `protocolBinding`s it serves `mount` with, for the check of `preferredBinding`. */
  bindingsOf(mount: ServedMount): readonly string[];
}

const DEFAULT_SHUTDOWN_MS = 10_000;

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

function externalOf(
  option: A2AAgentMount['interfaces'],
): (baseUrl: string) => readonly AgentInterface[] {
  if (typeof option === 'function') return option;
  const fixed = option ?? [];
  return () => fixed;
}

/** The resolved options of one server, shared by its listeners. */
export class ServerCore {
  readonly agents: readonly ServedMount[];
  readonly authenticate: Authenticator;
  /** What the cards declare about authentication; `undefined` when the server enforces none. */
  readonly authentication: ServerAuthentication | undefined;
  /** Failed authentications per address; `undefined` for no limit. */
  readonly failedAuthentications: FailedAuthenticationLimiter | undefined;
  /** What every listener runs the identity hook with. */
  readonly identity: IdentityCheck;
  readonly logger: Logger;
  readonly publicUrl: string | undefined;
  readonly compat: CompatLayer | undefined;
  readonly preferredBinding: string | undefined;
  /**
   * The base URL of the server's HTTP listener once it listens, for listeners without URLs of
   * their own (an extended card answered over gRPC lists the HTTP interfaces under it).
   */
  httpBaseUrl: string | undefined;
  readonly #http: InterfaceSource[] = [];
  readonly #others: InterfaceSource[] = [];
  #shutdown: Promise<void> | undefined;

  /** @throws ConfigurationError naming the offending option. */
  constructor(options: ServerCoreOptions) {
    if (options.agents.length === 0) {
      throw new ConfigurationError(
        'agents is empty; serve at least one agent: { path: "", handler }',
      );
    }
    const preferred = options.preferredBinding;
    if (preferred !== undefined && (typeof preferred !== 'string' || preferred === '')) {
      throw new ConfigurationError(
        `preferredBinding must be a protocolBinding name such as 'JSONRPC', 'HTTP+JSON' or 'GRPC'; got ${JSON.stringify(preferred)}`,
      );
    }
    this.logger = options.logger ?? silentLogger;
    const telemetry = options.telemetry;
    const served = {
      interceptors: [
        ...(telemetry === false ? [] : [telemetryInterceptor(telemetry)]),
        ...(options.interceptors ?? []),
      ],
      limits: options.limits,
      logger: this.logger,
    };
    this.agents = options.agents.map((agent, index) => {
      const path = normalizeUrlPath(`agents[${index}].path`, agent.path);
      if (agent.tenant !== undefined && agent.tenant === '') {
        throw new ConfigurationError(`agents[${index}].tenant must not be empty; omit it for none`);
      }
      return {
        path,
        handler: agent.handler,
        tenant: agent.tenant,
        bindings: agent.bindings,
        endpoint: createAgentEndpoint(path, agent.handler, {
          ...served,
          limits: agent.limits ?? served.limits,
        }),
        external: externalOf(agent.interfaces),
        hasExternal: agent.interfaces !== undefined,
      };
    });
    const authenticate = options.authenticate;
    this.authenticate =
      typeof authenticate === 'function'
        ? authenticate
        : (authenticate?.authenticate ?? anonymousAuthenticator);
    this.authentication = typeof authenticate === 'object' ? authenticate : undefined;
    this.failedAuthentications = resolveFailedAuthentications(
      options.failedAuthentications,
      authenticate !== undefined,
    );
    this.identity = {
      authenticate: this.authenticate,
      failures: this.failedAuthentications,
      logger: this.logger,
    };
    this.publicUrl = resolvePublicUrl(options.publicUrl);
    this.compat = options.compat;
    this.preferredBinding = preferred;
    this.httpBaseUrl = undefined;
  }

  /** Whether another listener than HTTP, or the mount itself, may list interfaces of `mount`. */
  servedElsewhere(mount: ServedMount): boolean {
    return mount.hasExternal || this.#others.length > 0;
  }

  /** The agent mounted at `path` (`'/'` is the root), if any. */
  agentAt(path: string): ServedMount | undefined {
    const normalized = path === '/' ? '' : path;
    return this.agents.find((agent) => agent.path === normalized);
  }

  /**
   * Declares a listener's interfaces: an HTTP listener's are listed first, others' after them,
   * the mounts' own `interfaces` last.
   */
  serveOn(source: InterfaceSource, kind: 'http' | 'other'): void {
    (kind === 'http' ? this.#http : this.#others).push(source);
  }

  /** Every interface of `mount` under `baseUrl`, as its cards list them: the preferred first. */
  interfacesOf(mount: ServedMount, baseUrl: string): AgentInterface[] {
    const list: AgentInterface[] = [];
    for (const source of this.#http) list.push(...source.interfacesOf(mount, baseUrl));
    for (const source of this.#others) list.push(...source.interfacesOf(mount, baseUrl));
    for (const external of mount.external(baseUrl)) list.push({ ...external });
    const preferred = this.preferredBinding;
    if (preferred === undefined) return list;
    const first = list.filter((entry) => entry.protocolBinding === preferred);
    return [...first, ...list.filter((entry) => entry.protocolBinding !== preferred)];
  }

  /**
   * Checks that every agent can list the preferred binding first, once the listeners are
   * declared.
   *
   * @throws ConfigurationError naming the agent and the bindings it is served with.
   */
  checkPreferredBinding(): void {
    const preferred = this.preferredBinding;
    if (preferred === undefined) return;
    for (const mount of this.agents) {
      if (mount.hasExternal) continue;
      const bindings = [...this.#http, ...this.#others].flatMap((s) => s.bindingsOf(mount));
      if (bindings.includes(preferred)) continue;
      throw new ConfigurationError(
        `preferredBinding ${JSON.stringify(preferred)} is not served for the agent at ` +
          `${JSON.stringify(mount.path)}: its bindings are ${bindings.join(', ')}`,
      );
    }
  }

  /**
   * Shuts every agent's request handler down, once whichever listener asks first: stop accepting
   * work, let running executions and streams finish up to `deadlineMs`, cancel the rest.
   *
   * @throws AggregateError of the handlers that failed to shut down.
   */
  shutdownAgents(options: { readonly deadlineMs?: number | undefined } = {}): Promise<void> {
    this.#shutdown ??= this.#shutdownAgents(options.deadlineMs ?? DEFAULT_SHUTDOWN_MS);
    return this.#shutdown;
  }

  async #shutdownAgents(deadlineMs: number): Promise<void> {
    const results = await Promise.allSettled(
      this.agents.map((agent) => agent.handler.shutdown({ deadlineMs })),
    );
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failures.length > 0) {
      throw new AggregateError(failures, `${failures.length} agent(s) failed to shut down`);
    }
  }
}
