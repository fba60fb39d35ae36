/**
 * A Tandem server inside the test process, composed from the public API the way an application
 * composes it — `createTaskRuntime`, `createRequestHandler`, `createA2AServer` — on a loopback
 * port, with a driver of the chosen binding for each agent it serves. Requests a test tags can
 * be followed on the server side (when their response closes, how often it waited to drain).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createA2AServer,
  createRequestHandler,
  type A2ANodeServer,
  type A2ANodeServerOptions,
  type AgentDefinition,
  type CallLimitsOptions,
  type Logger,
  type TaskContentLimits,
  type PushNotifications,
  type ServerInterceptor,
  type TaskAccessPolicy,
  type TaskRuntime,
} from '../../src/server.js';
import { ServerInterceptingCall, type ServerInterceptor as GrpcInterceptor } from '@grpc/grpc-js';
import type { A2AGrpcServer } from '../../src/server-grpc.js';
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
  /** Abuse limits of the server, per caller (none unless given). */
  readonly limits?: CallLimitsOptions;
  /** What one task of every request handler may hold (none unless given). */
  readonly contentLimits?: TaskContentLimits;
  /** The access policy of every request handler (none unless given). */
  readonly accessPolicy?: TaskAccessPolicy;
  /** Options of the node adapter. */
  readonly http?: Partial<Omit<A2ANodeServerOptions, 'agents'>>;
  /**
   * Serve gRPC too, on a port of its own (always when the block's binding is gRPC), with the
   * node adapter's `authenticate` and `failedAuthentications`.
   */
  readonly grpc?: boolean;
  /** Push notifications of every request handler (over the same runtime). */
  readonly push?: PushNotifications;
  /** Server interceptors, on every binding. */
  readonly interceptors?: readonly ServerInterceptor[];
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
  /** The gRPC server, when one is served. */
  readonly grpc: A2AGrpcServer | undefined;
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
  const agents = mounts.map((mount) => ({
    path: mount.path,
    handler: createRequestHandler({
      agent: mount.agent,
      runtime,
      ...(options.isolate === true
        ? { agentName: `${mount.agent.card.name}/${crypto.randomUUID()}` }
        : {}),
      ...(streamBufferSize === undefined ? {} : { streamBufferSize }),
      ...(logger === undefined ? {} : { logger }),
      contentLimits: options.contentLimits,
      ...(options.push === undefined ? {} : { push: options.push }),
      ...(options.accessPolicy === undefined ? {} : { accessPolicy: options.accessPolicy }),
    }),
  }));
  const tracker = new TaggedRequests();
  const {
    authenticate,
    failedAuthentications,
    publicUrl,
    compat,
    preferredBinding,
    tls,
    logger: httpLogger,
    interceptors,
    limits,
    ...http
  } = options.http ?? {};
  const grpc = binding === 'grpc' || options.grpc === true;
  const server = createA2AServer({
    agents,
    logger: logger ?? httpLogger,
    limits: options.limits ?? limits,
    interceptors: options.interceptors ?? interceptors,
    authenticate,
    failedAuthentications,
    publicUrl,
    compat,
    preferredBinding,
    http: { ...http, tls, port: 0, host: '127.0.0.1' },
    grpc: grpc ? { tls, grpcInterceptors: [tracker.interceptor] } : undefined,
  });
  const node = server.http as A2ANodeServer;
  const tracked: A2ANodeServer = {
    server: node.server,
    listen: (listenOptions) => node.listen(listenOptions),
    interfacesOf: (path) => server.interfacesOf(path),
    shutdown: (shutdownOptions) => server.shutdown(shutdownOptions),
  };
  options.track(tracked);
  tracker.watch(node);
  const address = await server.listen();
  const url = address.http?.url ?? '';
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
  return {
    url,
    node: tracked,
    grpc: server.grpc,
    agent: endpoint(mounts[0]?.path ?? ''),
    endpoint,
    request: (tag) => tracker.request(tag),
  };
}

/**
 * The server's requests marked with the tag header (HTTP) or metadata (gRPC), to observe their
 * responses' lifecycle. A gRPC call counts as closed once its status is sent or it is cancelled;
 * it never waits to drain (HTTP/2 flow control is below grpc-js).
 */
class TaggedRequests {
  readonly #seen = new Map<string, Deferred<ServerSideRequest>>();

  #entry(tag: string): Deferred<ServerSideRequest> {
    let found = this.#seen.get(tag);
    if (found === undefined) {
      found = deferred<ServerSideRequest>();
      this.#seen.set(tag, found);
    }
    return found;
  }

  request(tag: string): Promise<ServerSideRequest> {
    return this.#entry(tag).promise;
  }

  watch(node: A2ANodeServer): void {
    node.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const tag = req.headers[TAG_HEADER];
      if (typeof tag !== 'string') return;
      let drains = 0;
      res.on('drain', () => drains++);
      const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
      this.#entry(tag).resolve({
        closed,
        get drains() {
          return drains;
        },
      });
    });
  }

  readonly interceptor: GrpcInterceptor = (_method, call) => {
    let close: (() => void) | undefined;
    const closed = new Promise<void>((resolve) => {
      close = resolve;
    });
    return new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, forward) => {
            const tag = metadata.get(TAG_HEADER)[0];
            if (typeof tag === 'string') this.#entry(tag).resolve({ closed, drains: 0 });
            forward(metadata);
          },
          onCancel: () => close?.(),
        }),
      sendStatus: (status, forward) => {
        forward(status);
        close?.();
      },
    });
  };
}
