/**
 * The agents as the HTTP listener mounts them: for each, its bindings (made by their factories
 * over the agent's endpoint, wrapped by the compat layer when there is one), its card cache, and
 * its interfaces declared to the server's core, which lists them in every card, gRPC's included;
 * then the route table over all of them (`router.ts`).
 *
 * Routes, for each agent mounted at `<path>` (`''` for the root):
 * - each binding's routes below `<path><binding path>` (JSON-RPC: `POST <path>/a2a`);
 * - `GET <path>/.well-known/agent-card.json` (and the compat layer's card paths).
 * And for the server: `GET /healthz` (liveness), `GET /readyz` (readiness), `GET /metrics` when
 * given a renderer; with several agents, `GET /` lists them and the first
 * agent's card is also served at the root card path (unless an agent is mounted at the root).
 */

import type {
  BindingContext,
  BindingRoute,
  ServerBinding,
} from '../bindings/server/server-binding.js';
import type { InterfacesOfRequest } from '../bindings/server/routed-request.js';
import type { ServedMount, ServerCore } from '../bindings/server/server-options.js';
import type { AgentInterface } from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { AgentCardCache } from './agent-card-route.js';
import type { ResolvedHttpOptions } from './http-options.js';
import { baseUrlOf } from './public-url.js';
import { Router } from './router.js';

/** The path of the agent card below an agent's path (spec 8.2). */
export const CARD_PATH = '/.well-known/agent-card.json';

/** One agent as the HTTP listener serves it. */
export interface AgentEntry {
  readonly mount: ServedMount;
  readonly bindings: readonly ServerBinding[];
  readonly cards: AgentCardCache;
  /** Its interfaces under the base URL of a request. */
  readonly interfacesOf: InterfacesOfRequest;
}

/** What a route leads to. */
export type Target =
  | {
      readonly kind: 'binding';
      readonly agent: AgentEntry;
      readonly binding: ServerBinding;
      readonly route: BindingRoute;
    }
  | { readonly kind: 'card'; readonly agent: AgentEntry }
  | { readonly kind: 'health' }
  | { readonly kind: 'ready' }
  | { readonly kind: 'metrics'; readonly render: () => Promise<string> }
  | { readonly kind: 'index' };

/** The agents and the routes to them. */
export interface MountedAgents {
  readonly agents: readonly AgentEntry[];
  readonly router: Router<Target>;
}

/** The interfaces of one agent's HTTP bindings under a base URL. */
function bindingInterfaces(
  mount: ServedMount,
  bindings: readonly ServerBinding[],
  baseUrl: string,
): AgentInterface[] {
  const tenant = mount.tenant;
  return bindings.map((binding) => {
    const entry: AgentInterface = {
      url: baseUrl + mount.path + binding.path,
      protocolBinding: binding.protocolBinding,
      protocolVersion: binding.protocolVersion,
    };
    if (tenant !== undefined) entry.tenant = tenant;
    return entry;
  });
}

/**
 * Makes every agent's bindings and cards, declares their interfaces to `core`, and routes them.
 *
 * @throws ConfigurationError for an agent served by nothing, or an invalid agent card.
 */
export function mountAgents(core: ServerCore, http: ResolvedHttpOptions): MountedAgents {
  const byMount = new Map<ServedMount, readonly ServerBinding[]>();
  core.serveOn(
    {
      interfacesOf: (mount, baseUrl) => bindingInterfaces(mount, byMount.get(mount) ?? [], baseUrl),
      bindingsOf: (mount) => (byMount.get(mount) ?? []).map((binding) => binding.protocolBinding),
    },
    'http',
  );
  const { publicUrl, compat } = core;
  const agents = core.agents.map((mount, index): AgentEntry => {
    const interfacesOf: InterfacesOfRequest = (request) =>
      core.interfacesOf(mount, baseUrlOf(request, publicUrl));
    const context: BindingContext = {
      endpoint: mount.endpoint,
      logger: core.logger,
      maxBodyBytes: http.maxBodyBytes,
      agentInterfaces: interfacesOf,
    };
    const factories = mount.bindings ?? http.bindings;
    if (factories.length === 0 && !core.servedElsewhere(mount)) {
      throw new ConfigurationError(
        `agents[${index}] has no bindings and no interfaces: mount at least one, e.g. jsonRpcBinding()`,
      );
    }
    const created = factories.map((factory) => factory({ ...context }));
    const bindings = compat === undefined ? created : compat.mount(created, context);
    byMount.set(mount, bindings);
    const cards = new AgentCardCache(
      mount.handler,
      mount.path,
      (baseUrl) => core.interfacesOf(mount, baseUrl),
      core.authentication,
      http.cardSigner,
      compat?.present,
    );
    return { mount, bindings, cards, interfacesOf };
  });
  const router = routesOf(agents, [CARD_PATH, ...(compat?.cardPaths ?? [])]);
  if (http.metrics !== undefined)
    router.add('GET', '/metrics', { kind: 'metrics', render: http.metrics });
  return { agents, router };
}

function routesOf(agents: readonly AgentEntry[], cardPaths: readonly string[]): Router<Target> {
  const router = new Router<Target>();
  router.add('GET', '/healthz', { kind: 'health' });
  router.add('GET', '/readyz', { kind: 'ready' });
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
    for (const path of cardPaths) {
      router.add('GET', agent.mount.path + path, { kind: 'card', agent });
    }
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
  return router;
}
