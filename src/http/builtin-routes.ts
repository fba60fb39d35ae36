/**
 * What every HTTP server answers besides its bindings: the agent cards (with `ETag` and
 * `Last-Modified` revalidation), the agent index, the health and readiness probes, and the safe defaults of a
 * router — an unknown path is a 404 that lists the real endpoints, a known path with the wrong
 * method a 405 with `Allow` (in the binding's error form on a binding's route), both with a JSON
 * body in the error form of HTTP+JSON (`google.rpc.Status`).
 */

import type { HttpRefusal } from '../bindings/server/server-binding.js';
import type { HttpRequest, HttpResponse } from '../bindings/server/http-exchange.js';
import { jsonMediaTypeFor } from '../bindings/server/http-media.js';
import { readinessOf } from '../runtime/readiness.js';
import { notModified } from './agent-card-route.js';
import { CARD_PATH, type AgentEntry, type Target } from './agent-mounts.js';
import { baseUrlOf } from './public-url.js';
import type { RouteLookup } from './router.js';

/** The media type of the Prometheus text exposition format. */
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** A `google.rpc.Status` body, the error form of the server's own routes (and HTTP+JSON's). */
export function statusBody(code: number, status: string, message: string): string {
  return JSON.stringify({ error: { code, status, message, details: [] } });
}

/** A JSON response; an error's media type follows the request's `Accept`. */
export function json(status: number, body: string | undefined, request: HttpRequest): HttpResponse {
  const headers: Record<string, string> = {
    'content-type': status >= 400 ? jsonMediaTypeFor(request.get('accept')) : 'application/json',
  };
  return { status, headers, body: request.method === 'HEAD' ? undefined : body };
}

/** The methods of a route list as an `Allow` value: built-in GETs also answer HEAD. */
export function allowOf(methods: readonly string[], target: Target | undefined): string {
  const allow = [...methods];
  if (target !== undefined && target.kind !== 'binding' && allow.includes('GET')) {
    allow.splice(allow.indexOf('GET') + 1, 0, 'HEAD');
  }
  allow.push('OPTIONS');
  return allow.join(', ');
}

/** The answers of one server's built-in routes. */
export class BuiltinRoutes {
  readonly #agents: readonly AgentEntry[];
  readonly #publicUrl: string | undefined;
  readonly #cacheControl: string;

  constructor(agents: readonly AgentEntry[], publicUrl: string | undefined, maxAgeSeconds: number) {
    this.#agents = agents;
    this.#publicUrl = publicUrl;
    this.#cacheControl = `public, max-age=${maxAgeSeconds}`;
  }

  health(request: HttpRequest): HttpResponse {
    return json(200, '{"status":"ok"}', request);
  }

  /**
   * Readiness: 200 when every agent's runtime has started and its store answers, else 503 with
   * the first reason found (and the agent's path). `/healthz` stays liveness.
   */
  async ready(request: HttpRequest): Promise<HttpResponse> {
    const checks = this.#agents.map(async ({ mount }) => ({
      path: mount.path === '' ? '/' : mount.path,
      readiness: (await readinessOf(mount.handler)?.checkReadiness()) ?? { ready: true },
    }));
    for (const { path, readiness } of await Promise.all(checks)) {
      if (!readiness.ready) {
        const body = JSON.stringify({ status: 'not ready', agent: path, reason: readiness.reason });
        const response = json(503, body, request);
        response.headers['cache-control'] = 'no-store';
        return response;
      }
    }
    const response = json(200, '{"status":"ready"}', request);
    response.headers['cache-control'] = 'no-store';
    return response;
  }

  /** Prometheus text (a failed collection is the core's logged 500, as any unexpected error). */
  async metrics(render: () => Promise<string>, request: HttpRequest): Promise<HttpResponse> {
    const text = await render();
    return {
      status: 200,
      headers: { 'content-type': PROMETHEUS_TEXT, 'cache-control': 'no-store' },
      body: request.method === 'HEAD' ? undefined : text,
    };
  }

  /** 404, naming the card path and the first agents' interfaces below this server. */
  notFound(request: HttpRequest): HttpResponse {
    const base = baseUrlOf(request, this.#publicUrl);
    const endpoints = this.#agents
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

  /** 405 with `Allow`, in the binding's error form on a binding's route. */
  methodNotAllowed(
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

  /** The agent's card, or `304 Not Modified` for a matching conditional GET. */
  async card(agent: AgentEntry, request: HttpRequest): Promise<HttpResponse> {
    const served = await agent.cards.get(baseUrlOf(request, this.#publicUrl));
    const headers: Record<string, string> = {
      'cache-control': this.#cacheControl,
      etag: served.etag,
      'last-modified': served.lastModified,
    };
    if (notModified(request.get('if-none-match'), request.get('if-modified-since'), served)) {
      return { status: 304, headers };
    }
    headers['content-type'] = 'application/json';
    return { status: 200, headers, body: request.method === 'HEAD' ? undefined : served.json };
  }

  /** `GET /` with several agents: each with its card URL and first interface. */
  index(request: HttpRequest): HttpResponse {
    const base = baseUrlOf(request, this.#publicUrl);
    const list = this.#agents.map(({ mount, cards }) => ({
      name: mount.handler.card.name,
      description: mount.handler.card.description,
      path: mount.path === '' ? '/' : mount.path,
      cardUrl: cards.cardUrl(base),
      url: cards.interfaces(base)[0]?.url,
    }));
    return json(200, JSON.stringify({ agents: list }), request);
  }
}
