/**
 * Which agent a gRPC call is for. Several agents share one port by tenant (spec 4.4.6: a client
 * sends the `tenant` of the interface it uses with every request): each agent's GRPC interface
 * declares the tenant that routes to it — its mount's `tenant` when it has one, else its mount
 * path without the leading slash (`agents/dice`); an agent mounted at the root takes requests
 * without a tenant, and without one the first agent does. A tenant that only routes is not the
 * task scope: the call goes on without tenant, so the agent's tasks are the same through every
 * binding. A single agent takes every request, whatever its tenant.
 */

import { InvalidParamsError } from '../../protocol/errors.js';
import { ConfigurationError } from '../../protocol/local-errors.js';
import type { AgentInterface } from '../../protocol/generated/types.js';
import type { RoutedAgent } from '../server/prepare-call.js';
import type { ServedMount } from '../server/server-options.js';

/** One agent on the port, and the tenant that routes to it. */
export interface GrpcAgent {
  readonly mount: ServedMount;
  /** The tenant that routes to it; `undefined` for the only agent (it takes every request). */
  readonly routeTenant: string | undefined;
}

/** The agents of a port by tenant. */
export class GrpcAgentRoutes {
  readonly agents: readonly GrpcAgent[];
  readonly #byTenant = new Map<string, GrpcAgent>();
  readonly #fallback: GrpcAgent | undefined;
  readonly #interfacesOf: (agent: GrpcAgent, authority: string) => AgentInterface[];

  /**
   * @param interfacesOf an agent's interfaces for an extended card answered to a call that came
   *   to `authority` (the `host:port` the client reached).
   * @throws ConfigurationError when two agents route from the same tenant.
   */
  constructor(
    mounts: readonly ServedMount[],
    interfacesOf: (agent: GrpcAgent, authority: string) => AgentInterface[],
  ) {
    this.#interfacesOf = interfacesOf;
    const several = mounts.length > 1;
    this.agents = mounts.map((mount) => ({
      mount,
      routeTenant: mount.tenant ?? (several ? mount.path.replace(/^\/+/, '') : undefined),
    }));
    for (const agent of this.agents) {
      if (agent.routeTenant === undefined) continue;
      const other = this.#byTenant.get(agent.routeTenant);
      if (other !== undefined) {
        throw new ConfigurationError(
          `The agents at "${other.mount.path}" and "${agent.mount.path}" both route from tenant ` +
            `${JSON.stringify(agent.routeTenant)} on the gRPC port; give one a tenant of its own`,
        );
      }
      this.#byTenant.set(agent.routeTenant, agent);
    }
    this.#fallback = this.#byTenant.get('') ?? this.agents[0];
  }

  /** The agent mounted at `path`, if any. */
  at(path: string): GrpcAgent | undefined {
    return this.agents.find((agent) => agent.mount.path === path);
  }

  /**
   * The agent a request's tenant routes to, with the tenant of its call, and its interfaces for an
   * extended card.
   *
   * @throws InvalidParamsError naming `tenant` when no agent is served under it.
   */
  route(tenant: string, authority: string): RoutedAgent {
    const only = this.agents.length === 1 ? this.agents[0] : undefined;
    const agent =
      only ?? this.#byTenant.get(tenant) ?? (tenant === '' ? this.#fallback : undefined);
    if (agent === undefined) {
      const known = [...this.#byTenant.keys()].map((t) => JSON.stringify(t)).join(', ');
      throw InvalidParamsError.fromViolations([
        {
          field: 'tenant',
          description: `no agent is served under tenant ${JSON.stringify(tenant.slice(0, 100))} on this gRPC port; use the tenant of the GRPC interface in the agent's card (${known})`,
        },
      ]);
    }
    return {
      endpoint: agent.mount.endpoint,
      // The tenant that only picked the agent is not the scope of its tasks.
      tenant: agent.routeTenant === undefined || agent.mount.tenant !== undefined ? tenant : '',
      agentInterfaces: () => this.#interfacesOf(agent, authority),
    };
  }
}
