/**
 * The A2A HTTP core: a router over the protocol bindings mounted for each agent (see
 * `bindings/server/server-binding.ts` and `agent-mounts.ts`), plus the routes every server has
 * (`builtin-routes.ts`). Every transport (fetch handler, node adapter, Express adapter) is a thin
 * bridge around it; see `bindings/server/http-exchange.ts` for why the core does not use web
 * `Request`/`Response`. It is the HTTP listener over a server's core (`ServerCore`), which it
 * shares with a gRPC listener when `createA2AServer` serves both.
 *
 * Every call to a binding's route first goes through the identity hook (`authenticate`); a refusal
 * is answered by that binding in its own error form. Cards, health and CORS preflights stay open.
 * `OPTIONS` on a known path is a CORS preflight (204).
 */

import { identifyCaller, CallAuthenticationRequest } from '../bindings/server/authentication.js';
import type { IdentityVerdict } from '../bindings/server/authentication.js';
import type { CallReport } from '../bindings/server/call-report.js';
import type { HttpRequest, HttpResponse } from '../bindings/server/http-exchange.js';
import { refusalOf } from '../bindings/server/refusals.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../bindings/server/request-id.js';
import { RoutedRequest } from '../bindings/server/routed-request.js';
import { ServerCore } from '../bindings/server/server-options.js';
import type { AgentInterface } from '../protocol/generated/types.js';
import type { Principal } from '../runtime/call-context.js';
import type { Logger } from '../runtime/logger.js';
import { mountAgents, type Target } from './agent-mounts.js';
import { BuiltinRoutes, allowOf, json, statusBody } from './builtin-routes.js';
import { createCorsPolicy } from './cors.js';
import { resolveHttpOptions, type A2AHandlerOptions, type HttpOptions } from './http-options.js';
import { RequestLog } from './request-log.js';

/** The transport-neutral server: what every bridge calls. */
export interface HttpCore {
  /** The server's core (agents, identity, interceptors), shared with its other listeners. */
  readonly core: ServerCore;
  readonly logger: Logger;
  /** Interval of SSE heartbeats, in ms (0: none). */
  readonly heartbeatMs: number;
  /** Answers a request; never rejects (unexpected errors are logged and answered with 500). */
  handle(request: HttpRequest): Promise<HttpResponse>;
  /**
   * The interfaces the card of the agent mounted at `path` lists under `baseUrl` (or `publicUrl`);
   * empty for no such agent.
   */
  interfacesOf(path: string, baseUrl: string): AgentInterface[];
  /** Whether `path` is one of the core's routes (adapters that can fall through check first). */
  hasRoute(path: string): boolean;
  /**
   * Shuts every agent's request handler down (once per server, whichever listener asks): stop
   * accepting work, let running executions and streams finish up to `deadlineMs`, cancel the rest.
   */
  shutdownAgents(options?: { deadlineMs?: number }): Promise<void>;
}

/** The result of routing: the response, and the binding's report when a binding answered. */
interface Routed {
  readonly response: HttpResponse;
  readonly report?: CallReport | undefined;
  /** Who called, once authenticated. */
  readonly principal?: Principal | undefined;
}

/**
 * Creates the HTTP listener: over `core` when given (the server's other listeners share it),
 * else over a core of its own made from `options`.
 *
 * @throws ConfigurationError for invalid options or an invalid agent card.
 */
export function createHttpCore(options: A2AHandlerOptions): HttpCore;
export function createHttpCore(options: HttpOptions, core: ServerCore): HttpCore;
export function createHttpCore(options: A2AHandlerOptions | HttpOptions, shared?: ServerCore) {
  const core = shared ?? new ServerCore(options as A2AHandlerOptions);
  const http = resolveHttpOptions(options);
  const { logger, publicUrl, identity } = core;
  const { agents, router } = mountAgents(core, http);
  if (shared === undefined) core.checkPreferredBinding();
  const builtin = new BuiltinRoutes(agents, publicUrl, http.cardMaxAgeSeconds);
  const cors = createCorsPolicy(http.corsOrigins);
  const requestLog = new RequestLog(logger);

  /** Serves a binding's route once the identity hook let the call through. */
  function serveBinding(
    target: Extract<Target, { kind: 'binding' }>,
    params: Readonly<Record<string, string>>,
    request: HttpRequest,
  ): Routed | Promise<Routed> {
    const binding = target.binding.protocolBinding;
    const identified = identifyCaller(
      identity,
      new CallAuthenticationRequest(binding, request, request.query, request),
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
    if (refusal !== undefined) {
      return binding.refuseCall === undefined
        ? { response: binding.refuse(refusal, request) }
        : binding.refuseCall(refusal, request).then((response) => ({ response }));
    }
    const principal = verdict as Principal;
    return callRoute(
      target,
      new RoutedRequest(
        binding.protocolBinding,
        request,
        params,
        principal,
        target.agent.interfacesOf,
      ),
    );
  }

  async function callRoute(
    target: Extract<Target, { kind: 'binding' }>,
    routed: RoutedRequest,
  ): Promise<Routed> {
    const reply = await target.route.handle(routed);
    return { response: reply.response, report: reply.report, principal: routed.principal };
  }

  // Not async: what is answered at once (OPTIONS, health, a refusal of the identity hook) costs
  // no promise.
  function route(request: HttpRequest): Routed | Promise<Routed> {
    const method = request.method;
    if (method === 'OPTIONS') {
      const methods = router.methodsOf(request.path);
      if (methods.length === 0) return { response: builtin.notFound(request) };
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
    if (found.kind === 'not-found') return { response: builtin.notFound(request) };
    if (found.kind === 'method-not-allowed') {
      return { response: builtin.methodNotAllowed(found, request) };
    }
    const target = found.target;
    switch (target.kind) {
      case 'binding':
        return serveBinding(target, found.params, request);
      case 'card':
        return builtin.card(target.agent, request).then((response) => ({ response }));
      case 'health':
        return { response: builtin.health(request) };
      case 'ready':
        return builtin.ready(request).then((response) => ({ response }));
      case 'metrics':
        return builtin.metrics(target.render, request).then((response) => ({ response }));
      case 'index':
        return { response: builtin.index(request) };
    }
  }

  return {
    core,
    logger,
    heartbeatMs: http.heartbeatMs,
    hasRoute: (path) => router.methodsOf(path).length > 0,
    interfacesOf(path, baseUrl) {
      const mount = core.agentAt(path);
      return mount === undefined ? [] : core.interfacesOf(mount, publicUrl ?? baseUrl);
    },
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
      const requestId = requestIdOf(request.get(REQUEST_ID_HEADER));
      response.headers[REQUEST_ID_HEADER] = requestId;
      cors.apply(response.headers, request);
      if (request.method === 'HEAD' && response.body !== undefined) {
        response = { ...response, body: undefined };
      }
      if (!logging) return response;
      return requestLog.finish(request, response, routed, start, requestId);
    },
    shutdownAgents: (shutdownOptions) => core.shutdownAgents(shutdownOptions),
  } satisfies HttpCore;
}
