/**
 * The A2A HTTP core: a router over the protocol bindings mounted for each agent (see
 * `bindings/server/server-binding.ts`), plus the routes every server has. Every transport (fetch
 * handler, node adapter, Express adapter) is a thin bridge around it; see
 * `protocol/http-exchange.ts` for why the core does not use web `Request`/`Response`.
 *
 * Routes, for each agent mounted at `<path>` (`''` for the root):
 * - each binding's routes below `<path><binding path>` (JSON-RPC: `POST <path>/a2a`);
 * - `GET <path>/.well-known/agent-card.json`: the agent card (`agent-card-route.ts`), listing one
 *   interface per binding.
 *
 * And for the server: `GET /healthz` → `{"status":"ok"}`. When several agents are mounted,
 * `GET /` lists them (`{ agents: [{ name, description, path, cardUrl, url }] }`) and the FIRST
 * agent's card is also served at the root `/.well-known/agent-card.json` (unless an agent is
 * mounted at the root), so that a client that only knows the host still discovers an agent.
 *
 * Every call to a binding's route first goes through the identity hook (`authenticate`); a refusal
 * is answered by that binding in its own error form. Cards, health and CORS preflights stay open.
 *
 * Safe defaults: an unknown path is a 404 and a known path with the wrong method a 405 with
 * `Allow` (in the binding's error form on a binding's route), both with a JSON body; `OPTIONS` on a
 * known path is a CORS preflight (204).
 */

import {
  identifyCaller,
  CallAuthenticationRequest,
  type IdentityCheck,
  type IdentityVerdict,
} from '../bindings/server/authentication.js';
import type { CallReport } from '../bindings/server/call-report.js';
import type { Principal } from '../runtime/call-context.js';
import type {
  BindingContext,
  BindingRequest,
  BindingRoute,
  HttpRefusal,
  ServerBinding,
} from '../bindings/server/server-binding.js';
import { jsonMediaTypeFor } from '../bindings/server/http-media.js';
import { refusalOf } from '../bindings/server/refusals.js';
import { RoutedRequest, type InterfacesOfRequest } from '../bindings/server/routed-request.js';
import type { HttpRequest, HttpResponse } from '../bindings/server/http-exchange.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import type { AgentInterface } from '../protocol/generated/types.js';
import { AgentCardCache, notModified } from './agent-card-route.js';
import { createCorsPolicy, type CorsPolicy } from './cors.js';
import {
  resolveHttpOptions,
  type A2AHandlerOptions,
  type ResolvedAgentMount,
  type ResolvedHttpOptions,
} from './http-options.js';
import { baseUrlOf } from './public-url.js';
import { RequestLog } from './request-log.js';
import { Router, type RouteLookup } from './router.js';

/** The transport-neutral server: what every bridge calls. */
export interface HttpCore {
  readonly options: ResolvedHttpOptions;
  /** Answers a request; never rejects (unexpected errors are logged and answered with 500). */
  handle(request: HttpRequest): Promise<HttpResponse>;
  /**
   * The interfaces the card of the agent mounted at `path` lists under `baseUrl` (e.g. for a
   * binding served elsewhere, such as gRPC, to declare in extended cards); empty for no such agent.
   */
  interfacesOf(path: string, baseUrl: string): AgentInterface[];
  /** Whether `path` is one of the core's routes (adapters that can fall through check first). */
  hasRoute(path: string): boolean;
  /**
   * Shuts every agent's request handler down: stop accepting work, let running executions and
   * streams finish up to `deadlineMs`, cancel the rest.
   */
  shutdownAgents(options?: { deadlineMs?: number }): Promise<void>;
}

interface AgentEntry {
  readonly mount: ResolvedAgentMount;
  readonly bindings: readonly ServerBinding[];
  readonly cards: AgentCardCache;
  /** Its interfaces under the base URL of a request. */
  readonly interfacesOf: InterfacesOfRequest;
}

type Target =
  | {
      readonly kind: 'binding';
      readonly agent: AgentEntry;
      readonly binding: ServerBinding;
      readonly route: BindingRoute;
    }
  | { readonly kind: 'card'; readonly agent: AgentEntry }
  | { readonly kind: 'health' }
  | { readonly kind: 'index' };

const CARD_PATH = '/.well-known/agent-card.json';

async function callRoute(route: BindingRoute, input: BindingRequest): Promise<Routed> {
  const reply = await route.handle(input);
  return { response: reply.response, report: reply.report, principal: input.principal };
}

function routedResponse(response: HttpResponse): Routed {
  return { response };
}

/** The result of routing: the response, and the binding's report when a binding answered. */
interface Routed {
  readonly response: HttpResponse;
  readonly report?: CallReport | undefined;
  /** Who called, once authenticated. */
  readonly principal?: Principal | undefined;
}

/** A `google.rpc.Status` body, the error form of the server's own routes (and HTTP+JSON's). */
function statusBody(code: number, status: string, message: string): string {
  return JSON.stringify({ error: { code, status, message, details: [] } });
}

/** The interfaces of an agent under a base URL, the preferred binding first. */
function interfacesOf(
  mount: ResolvedAgentMount,
  bindings: readonly ServerBinding[],
  preferred: string | undefined,
): (baseUrl: string) => AgentInterface[] {
  const tenant = mount.tenant === undefined ? {} : { tenant: mount.tenant };
  return (baseUrl) => {
    const list: AgentInterface[] = bindings.map((binding) => ({
      url: baseUrl + mount.path + binding.path,
      protocolBinding: binding.protocolBinding,
      protocolVersion: binding.protocolVersion,
      ...tenant,
    }));
    for (const external of mount.interfaces(baseUrl)) list.push({ ...external });
    if (preferred === undefined) return list;
    const first = list.filter((entry) => entry.protocolBinding === preferred);
    return [...first, ...list.filter((entry) => entry.protocolBinding !== preferred)];
  };
}

/** The methods of a route list as an `Allow` value: built-in GETs also answer HEAD. */
function allowOf(methods: readonly string[], target: Target | undefined): string {
  const allow = [...methods];
  if (target !== undefined && target.kind !== 'binding' && allow.includes('GET')) {
    allow.splice(allow.indexOf('GET') + 1, 0, 'HEAD');
  }
  allow.push('OPTIONS');
  return allow.join(', ');
}

/** Creates the core. @throws ConfigurationError for invalid options or an invalid agent card. */
export function createHttpCore(options: A2AHandlerOptions): HttpCore {
  const resolved = resolveHttpOptions(options);
  const { logger, publicUrl, maxBodyBytes, cardMaxAgeSeconds, authenticate, compat } = resolved;
  const cardPaths = [CARD_PATH, ...(compat?.cardPaths ?? [])];
  const cors: CorsPolicy = createCorsPolicy(resolved.corsOrigins);
  const requestLog = new RequestLog(logger);
  const cacheControl = `public, max-age=${cardMaxAgeSeconds}`;
  const router = new Router<Target>();
  const identity: IdentityCheck = {
    authenticate,
    failures: resolved.failedAuthentications,
    logger,
  };

  const agents: AgentEntry[] = resolved.agents.map((mount) => {
    // The bindings are created before the card that lists them, and read it only per request.
    const holder: { cards?: AgentCardCache } = {};
    const interfacesOfRequest: InterfacesOfRequest = (request) =>
      holder.cards?.interfaces(baseUrlOf(request, publicUrl)) ?? [];
    const context: BindingContext = {
      endpoint: mount.endpoint,
      logger,
      maxBodyBytes,
      agentInterfaces: interfacesOfRequest,
    };
    const created = mount.bindings.map((factory) => factory({ ...context }));
    const bindings = compat === undefined ? created : compat.mount(created, context);
    const preferred = resolved.preferredBinding;
    if (
      preferred !== undefined &&
      !mount.external &&
      !bindings.some((binding) => binding.protocolBinding === preferred)
    ) {
      throw new ConfigurationError(
        `preferredBinding ${JSON.stringify(preferred)} is not served for the agent at ` +
          `${JSON.stringify(mount.path)}: its bindings are ${bindings.map((b) => b.protocolBinding).join(', ')}`,
      );
    }
    const cards = new AgentCardCache(
      mount.handler,
      mount.path,
      interfacesOf(mount, bindings, resolved.preferredBinding),
      resolved.authentication,
      resolved.cardSigner,
      compat?.present,
    );
    holder.cards = cards;
    return { mount, bindings, cards, interfacesOf: interfacesOfRequest };
  });

  router.add('GET', '/healthz', { kind: 'health' });
  for (const agent of agents) {
    for (const binding of agent.bindings) {
      for (const route of binding.routes) {
        router.add(route.method, agent.mount.path + binding.path + route.path, {
          kind: 'binding',
          agent,
          binding,
          route,
        });
      }
    }
    for (const path of cardPaths)
      router.add('GET', agent.mount.path + path, { kind: 'card', agent });
  }
  const first = agents[0];
  if (agents.length > 1 && first !== undefined) {
    router.add('GET', '/', { kind: 'index' });
    for (const path of cardPaths) {
      if (router.lookup('GET', path).kind === 'not-found') {
        router.add('GET', path, { kind: 'card', agent: first });
      }
    }
  }

  function json(status: number, body: string | undefined, request: HttpRequest): HttpResponse {
    const headers: Record<string, string> = {
      'content-type': status >= 400 ? jsonMediaTypeFor(request.get('accept')) : 'application/json',
    };
    return { status, headers, body: request.method === 'HEAD' ? undefined : body };
  }

  function notFound(request: HttpRequest): HttpResponse {
    const base = baseUrlOf(request, publicUrl);
    const endpoints = agents
      .slice(0, 3)
      .flatMap((agent) =>
        agent.cards
          .interfaces(base)
          .filter((entry) => entry.url.startsWith(base))
          .map((entry) => `${entry.protocolBinding} ${entry.url.slice(base.length) || '/'}`),
      )
      .join(', ');
    const message =
      `No A2A route at ${request.method} ${request.path}; agent cards are at ` +
      `<agent path>${CARD_PATH} and interfaces at ${endpoints}`;
    return json(404, statusBody(404, 'NOT_FOUND', message), request);
  }

  function methodNotAllowed(
    found: Extract<RouteLookup<Target>, { kind: 'method-not-allowed' }>,
    request: HttpRequest,
  ): HttpResponse {
    const allow = allowOf(found.allow, found.target);
    const message = `${request.method} is not allowed on ${request.path}; use ${allow}`;
    if (found.target.kind === 'binding') {
      const refusal: HttpRefusal = {
        status: 405,
        // google.rpc.Code has no name for it; transcoding gateways answer UNIMPLEMENTED.
        code: 'UNIMPLEMENTED',
        message,
        headers: { allow },
      };
      return found.target.binding.refuse(refusal, request);
    }
    const response = json(405, statusBody(405, 'UNIMPLEMENTED', message), request);
    response.headers.allow = allow;
    return response;
  }

  async function serveCard(agent: AgentEntry, request: HttpRequest): Promise<HttpResponse> {
    const served = await agent.cards.get(baseUrlOf(request, publicUrl));
    const headers: Record<string, string> = {
      'cache-control': cacheControl,
      etag: served.etag,
      'last-modified': served.lastModified,
    };
    if (notModified(request.get('if-none-match'), request.get('if-modified-since'), served)) {
      return { status: 304, headers };
    }
    headers['content-type'] = 'application/json';
    return { status: 200, headers, body: request.method === 'HEAD' ? undefined : served.json };
  }

  function serveIndex(request: HttpRequest): HttpResponse {
    const base = baseUrlOf(request, publicUrl);
    const list = agents.map(({ mount, cards }) => ({
      name: mount.handler.card.name,
      description: mount.handler.card.description,
      path: mount.path === '' ? '/' : mount.path,
      cardUrl: cards.cardUrl(base),
      url: cards.interfaces(base)[0]?.url,
    }));
    return json(200, JSON.stringify({ agents: list }), request);
  }

  /** Serves a binding's route once the identity hook let the call through. */
  function serveBinding(
    target: Extract<Target, { kind: 'binding' }>,
    params: Readonly<Record<string, string>>,
    request: HttpRequest,
  ): Routed | Promise<Routed> {
    const identified = identifyCaller(
      identity,
      new CallAuthenticationRequest(
        target.binding.protocolBinding,
        request,
        request.query,
        request,
      ),
      request.path,
    );
    // The anonymous authenticator answers at once: no promise to wait for.
    return identified instanceof Promise
      ? identified.then((verdict) => afterIdentity(target, params, request, verdict))
      : afterIdentity(target, params, request, identified);
  }

  function afterIdentity(
    target: Extract<Target, { kind: 'binding' }>,
    params: Readonly<Record<string, string>>,
    request: HttpRequest,
    verdict: IdentityVerdict,
  ): Routed | Promise<Routed> {
    const binding = target.binding;
    const refusal = refusalOf(verdict);
    if (refusal !== undefined) return { response: binding.refuse(refusal, request) };
    const routed = new RoutedRequest(
      binding.protocolBinding,
      request,
      params,
      verdict as Principal,
      target.agent.interfacesOf,
    );
    return callRoute(target.route, routed);
  }

  // Not async: what is answered at once (OPTIONS, health, a refusal of the identity hook) costs
  // no promise.
  function route(request: HttpRequest): Routed | Promise<Routed> {
    const method = request.method;
    if (method === 'OPTIONS') {
      const methods = router.methodsOf(request.path);
      if (methods.length === 0) return { response: notFound(request) };
      const lookup = router.lookup(methods[0] as string, request.path);
      const target = lookup.kind === 'found' ? lookup.target : undefined;
      const headers: Record<string, string> = {};
      cors.preflight(headers, request, allowOf(methods, target));
      return { response: { status: 204, headers } };
    }
    let found = router.lookup(method, request.path);
    if (found.kind !== 'found' && method === 'HEAD') {
      const asGet = router.lookup('GET', request.path);
      if (asGet.kind === 'found' && asGet.target.kind !== 'binding') found = asGet;
    }
    if (found.kind === 'not-found') return { response: notFound(request) };
    if (found.kind === 'method-not-allowed') return { response: methodNotAllowed(found, request) };
    const target = found.target;
    switch (target.kind) {
      case 'binding':
        return serveBinding(target, found.params, request);
      case 'card':
        return serveCard(target.agent, request).then(routedResponse);
      case 'health':
        return { response: json(200, '{"status":"ok"}', request) };
      case 'index':
        return { response: serveIndex(request) };
    }
  }

  return {
    options: resolved,
    hasRoute: (path) => router.methodsOf(path).length > 0,
    interfacesOf: (path, baseUrl) =>
      agents
        .find((agent) => agent.mount.path === (path === '/' ? '' : path))
        ?.cards.interfaces(publicUrl ?? baseUrl) ?? [],
    async handle(request) {
      const logging = requestLog.enabled;
      const start = logging ? performance.now() : 0;
      let routed: Routed;
      try {
        routed = await route(request);
      } catch (error) {
        logger.error(
          { err: error, path: request.path },
          'unexpected error while serving a request',
        );
        routed = { response: json(500, statusBody(500, 'INTERNAL', 'Internal error'), request) };
      }
      let response = routed.response;
      cors.apply(response.headers, request);
      if (request.method === 'HEAD' && response.body !== undefined) {
        response = { ...response, body: undefined };
      }
      if (!logging) return response;
      return requestLog.finish(request, response, routed, start);
    },
    async shutdownAgents(shutdownOptions = {}) {
      const results = await Promise.allSettled(
        agents.map((agent) => agent.mount.handler.shutdown(shutdownOptions)),
      );
      const failures = results.flatMap((r) =>
        r.status === 'rejected' ? [r.reason as unknown] : [],
      );
      if (failures.length > 0) {
        throw new AggregateError(failures, `${failures.length} agent(s) failed to shut down`);
      }
    },
  };
}
