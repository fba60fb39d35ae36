/**
 * The A2A HTTP core: routes an {@link HttpCoreRequest} to the agent card, the JSON-RPC endpoint
 * or a server route, and describes the response. Every transport (fetch handler, node adapter,
 * Express adapter) is a thin bridge around it; see `http-exchange.ts` for why the core does not
 * use web `Request`/`Response`.
 *
 * Routes, for each agent mounted at `<path>` (`''` for the root):
 * - `POST <path><rpcPath>` (and with a trailing slash): JSON-RPC (`json-rpc-route.ts`);
 * - `GET <path>/.well-known/agent-card.json`: the agent card (`agent-card-route.ts`).
 *
 * And for the server: `GET /healthz` → `{"status":"ok"}`. When several agents are mounted,
 * `GET /` lists them (`{ agents: [{ name, description, path, cardUrl, url }] }`) and the FIRST
 * agent's card is also served at the root `/.well-known/agent-card.json` (unless an agent is
 * mounted at the root), so that a client that only knows the host still discovers an agent.
 *
 * Safe defaults: an unknown path is a 404 and a known path with the wrong method a 405 with
 * `Allow`, both with a JSON body; `OPTIONS` on a known path is a CORS preflight (204).
 */

import { createJsonRpcHandler, type JsonRpcHandler } from '../bindings/jsonrpc/jsonrpc-server.js';
import type { JsonRpcReply } from '../bindings/jsonrpc/jsonrpc-server.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { AgentCardCache, ifNoneMatchMatches } from './agent-card-route.js';
import { createCorsPolicy, type CorsPolicy } from './cors.js';
import type { HttpCoreRequest, HttpCoreResponse } from './http-exchange.js';
import {
  resolveHttpOptions,
  type A2AHandlerOptions,
  type ResolvedAgentMount,
  type ResolvedHttpOptions,
} from './http-options.js';
import { jsonRpcRefusal, serveJsonRpc, type JsonRpcRouteContext } from './json-rpc-route.js';
import { baseUrlOf } from './public-url.js';
import { RequestLog } from './request-log.js';

/** The transport-neutral server: what every bridge calls. */
export interface HttpCore {
  readonly options: ResolvedHttpOptions;
  /** Answers a request; never rejects (unexpected errors are logged and answered with 500). */
  handle(request: HttpCoreRequest): Promise<HttpCoreResponse>;
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
  readonly rpc: JsonRpcHandler;
  readonly cards: AgentCardCache;
  readonly rpcContext: JsonRpcRouteContext;
}

type Route =
  | { readonly kind: 'rpc'; readonly agent: AgentEntry }
  | { readonly kind: 'card'; readonly agent: AgentEntry }
  | { readonly kind: 'health' }
  | { readonly kind: 'index' };

const RPC_METHODS = 'POST, OPTIONS';
const READ_METHODS = 'GET, HEAD, OPTIONS';
const CARD_PATH = '/.well-known/agent-card.json';

function buildRoutes(agents: readonly AgentEntry[]): Map<string, Route> {
  const routes = new Map<string, Route>();
  const add = (path: string, route: Route): void => {
    if (routes.has(path)) {
      throw new ConfigurationError(
        `Two routes claim ${path}; give each agent a distinct path (agents[].path) or rpcPath`,
      );
    }
    routes.set(path, route);
  };
  add('/healthz', { kind: 'health' });
  for (const agent of agents) {
    const rpcPath = agent.mount.path + agent.mount.rpcPath;
    add(rpcPath, { kind: 'rpc', agent });
    add(rpcPath + '/', { kind: 'rpc', agent });
    add(agent.mount.path + CARD_PATH, { kind: 'card', agent });
  }
  const first = agents[0];
  if (agents.length > 1 && first !== undefined) {
    add('/', { kind: 'index' });
    if (!routes.has(CARD_PATH)) routes.set(CARD_PATH, { kind: 'card', agent: first });
  }
  return routes;
}

function statusBody(code: number, status: string, message: string): string {
  return JSON.stringify({ error: { code, status, message } });
}

/** Creates the core. @throws ConfigurationError for invalid options or an invalid agent card. */
export function createHttpCore(options: A2AHandlerOptions): HttpCore {
  const resolved = resolveHttpOptions(options);
  const { logger, publicUrl, maxBodyBytes, cardMaxAgeSeconds } = resolved;
  const cors: CorsPolicy = createCorsPolicy(resolved.corsOrigins);
  const requestLog = new RequestLog(logger);
  const cacheControl = `public, max-age=${cardMaxAgeSeconds}`;

  const agents: AgentEntry[] = resolved.agents.map((mount) => {
    const cards = new AgentCardCache(mount.handler, mount.path, mount.rpcPath);
    return {
      mount,
      cards,
      rpc: createJsonRpcHandler(mount.handler, { logger }),
      rpcContext: {
        maxBodyBytes,
        cors,
        logger,
        agentInterfaces: (request) => cards.interfaces(baseUrlOf(request, publicUrl)),
      },
    };
  });
  const routes = buildRoutes(agents);

  function json(
    status: number,
    body: string | undefined,
    request: HttpCoreRequest,
  ): HttpCoreResponse {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    cors.apply(headers, request);
    return { status, headers, body: request.method === 'HEAD' ? undefined : body };
  }

  function notFound(request: HttpCoreRequest): HttpCoreResponse {
    const endpoints = agents
      .slice(0, 3)
      .map((agent) => `POST ${agent.mount.path + agent.mount.rpcPath}`)
      .join(', ');
    const message =
      `No A2A route at ${request.method} ${request.path}; agent cards are at ` +
      `<agent path>${CARD_PATH} and JSON-RPC endpoints at ${endpoints}`;
    return json(404, statusBody(404, 'NOT_FOUND', message), request);
  }

  function methodNotAllowed(route: Route, request: HttpCoreRequest): HttpCoreResponse {
    const allow = route.kind === 'rpc' ? RPC_METHODS : READ_METHODS;
    const message = `${request.method} is not allowed on ${request.path}; use ${allow}`;
    if (route.kind === 'rpc') return jsonRpcRefusal(405, message, cors, request, { allow });
    const response = json(405, statusBody(405, 'METHOD_NOT_ALLOWED', message), request);
    response.headers.allow = allow;
    return response;
  }

  async function serveCard(agent: AgentEntry, request: HttpCoreRequest): Promise<HttpCoreResponse> {
    const served = await agent.cards.get(baseUrlOf(request, publicUrl));
    const headers: Record<string, string> = { 'cache-control': cacheControl, etag: served.etag };
    cors.apply(headers, request);
    if (ifNoneMatchMatches(request.get('if-none-match'), served.etag))
      return { status: 304, headers };
    headers['content-type'] = 'application/json';
    return { status: 200, headers, body: request.method === 'HEAD' ? undefined : served.json };
  }

  function serveIndex(request: HttpCoreRequest): HttpCoreResponse {
    const base = baseUrlOf(request, publicUrl);
    const list = agents.map(({ mount, cards }) => ({
      name: mount.handler.card.name,
      description: mount.handler.card.description,
      path: mount.path === '' ? '/' : mount.path,
      cardUrl: cards.cardUrl(base),
      url: cards.rpcUrl(base),
    }));
    return json(200, JSON.stringify({ agents: list }), request);
  }

  async function route(
    request: HttpCoreRequest,
  ): Promise<{ response: HttpCoreResponse; reply?: JsonRpcReply | undefined }> {
    const found = routes.get(request.path);
    if (found === undefined) return { response: notFound(request) };
    const method = request.method;
    if (method === 'OPTIONS') {
      const headers: Record<string, string> = {};
      cors.preflight(headers, request, found.kind === 'rpc' ? RPC_METHODS : READ_METHODS);
      return { response: { status: 204, headers } };
    }
    if (found.kind === 'rpc') {
      if (method !== 'POST') return { response: methodNotAllowed(found, request) };
      return serveJsonRpc(found.agent.rpc, request, found.agent.rpcContext);
    }
    if (method !== 'GET' && method !== 'HEAD')
      return { response: methodNotAllowed(found, request) };
    switch (found.kind) {
      case 'card':
        return { response: await serveCard(found.agent, request) };
      case 'health':
        return { response: json(200, '{"status":"ok"}', request) };
      case 'index':
        return { response: serveIndex(request) };
    }
  }

  return {
    options: resolved,
    hasRoute: (path) => routes.has(path),
    async handle(request) {
      const logging = requestLog.enabled;
      const start = logging ? performance.now() : 0;
      let routed: { response: HttpCoreResponse; reply?: JsonRpcReply | undefined };
      try {
        routed = await route(request);
      } catch (error) {
        logger.error(
          { err: error, path: request.path },
          'unexpected error while serving a request',
        );
        routed = { response: json(500, statusBody(500, 'INTERNAL', 'Internal error'), request) };
      }
      if (!logging) return routed.response;
      return requestLog.finish(request, routed.response, routed.reply, start);
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
