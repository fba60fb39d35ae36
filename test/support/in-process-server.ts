/**
 * A Tandem server inside the test process, composed from the public API the way an application
 * composes it — `createTaskRuntime`, `createRequestHandler`, `createNodeServer` — on a loopback
 * port, with a driver of the chosen binding for each agent it serves. Requests a test tags can
 * be followed on the server side (when their response closes, how often it waited to drain).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createNodeServer,
  createRequestHandler,
  type A2ANodeServer,
  type A2ANodeServerOptions,
  type AgentDefinition,
  type CallLimitsOptions,
  type Logger,
  type TaskAccessPolicy,
  type TaskRuntime,
} from '../../src/server.js';
import { TAG_HEADER, type A2ADriver, type BindingName } from './drivers/a2a-driver.js';
import { connectDriver } from './drivers/bindings.js';
import type { DriverConnection } from './drivers/connection.js';
import { deferred, type Deferred } from './sync.js';

/** One agent of a server and where it is mounted (`''` for the root). */
export interface AgentMount {
  readonly path: string;
  readonly agent: AgentDefinition;
}

export interface ServeOptions {
  /** `streamBufferSize` of every request handler. */
  readonly streamBufferSize?: number;
  readonly logger?: Logger;
  /**
   * What the drivers of the server's agents connect with (client TLS for an HTTPS server,
   * credentials); none unless given.
   */
  readonly connection?: DriverConnection;
  /** Abuse limits of every request handler (none unless given). */
  readonly limits?: CallLimitsOptions;
  /** The access policy of every request handler (none unless given). */
  readonly accessPolicy?: TaskAccessPolicy;
  /** Options of the node adapter. */
  readonly http?: Partial<Omit<A2ANodeServerOptions, 'agents'>>;
}

/** A request as the server saw it, found by the tag the test sent (`CallOptions.tag`). */
export interface ServerSideRequest {
  /** Resolves when the server's side of the response is closed (finished or client gone). */
  readonly closed: Promise<void>;
  /** How many times the server had to wait for the client to drain the response. */
  readonly drains: number;
}

/** A running in-process server. */
export interface InProcessServer {
  readonly url: string;
  readonly node: A2ANodeServer;
  /** The driver of the first agent. */
  readonly agent: A2ADriver;
  /** The driver of the agent mounted at `path`. */
  endpoint(path: string): A2ADriver;
  /** Resolves once a request sent with `tag` has reached the server. */
  request(tag: string): Promise<ServerSideRequest>;
}

export interface InProcessServerOptions extends ServeOptions {
  readonly binding: BindingName;
  readonly runtime: TaskRuntime;
  readonly mounts: readonly AgentMount[];
  /** A namespace per server, so that tests sharing one store each see only their own tasks. */
  readonly isolate?: boolean;
  /** Called with the node server before it listens, so that the caller can shut it down. */
  readonly track: (node: A2ANodeServer) => void;
}

/** Serves `mounts` on a loopback port and resolves once every agent's driver is ready. */
export async function startInProcessServer(
  options: InProcessServerOptions,
): Promise<InProcessServer> {
  const { binding, runtime, mounts, logger, streamBufferSize } = options;
  const node = createNodeServer({
    ...options.http,
    ...(logger === undefined ? {} : { logger }),
    agents: mounts.map((mount) => ({
      path: mount.path,
      handler: createRequestHandler({
        agent: mount.agent,
        runtime,
        ...(options.isolate === true
          ? { agentName: `${mount.agent.card.name}/${crypto.randomUUID()}` }
          : {}),
        ...(streamBufferSize === undefined ? {} : { streamBufferSize }),
        ...(logger === undefined ? {} : { logger }),
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        ...(options.accessPolicy === undefined ? {} : { accessPolicy: options.accessPolicy }),
      }),
    })),
  });
  options.track(node);
  const tagged = trackTaggedRequests(node);
  const { url } = await node.listen({ port: 0, host: '127.0.0.1' });
  const drivers = new Map<string, A2ADriver>();
  for (const mount of mounts) {
    drivers.set(
      mount.path,
      await connectDriver(binding, `${url}${mount.path}`, options.connection ?? {}),
    );
  }
  const endpoint = (path: string): A2ADriver => {
    const driver = drivers.get(path);
    if (driver === undefined) throw new Error(`No agent is mounted at "${path}"`);
    return driver;
  };
  return { url, node, agent: endpoint(mounts[0]?.path ?? ''), endpoint, request: tagged };
}

/** Watches the server's requests for the tag header, to observe their responses' lifecycle. */
function trackTaggedRequests(node: A2ANodeServer): (tag: string) => Promise<ServerSideRequest> {
  const seen = new Map<string, Deferred<ServerSideRequest>>();
  const entry = (tag: string): Deferred<ServerSideRequest> => {
    let found = seen.get(tag);
    if (found === undefined) {
      found = deferred<ServerSideRequest>();
      seen.set(tag, found);
    }
    return found;
  };
  node.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const tag = req.headers[TAG_HEADER];
    if (typeof tag !== 'string') return;
    let drains = 0;
    res.on('drain', () => drains++);
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    entry(tag).resolve({
      closed,
      get drains() {
        return drains;
      },
    });
  });
  return (tag) => entry(tag).promise;
}
