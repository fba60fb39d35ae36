/**
 * `createA2AServer`: one object that serves a set of agents on every binding — JSON-RPC and
 * HTTP+JSON on an HTTP listener, gRPC on a port of its own — over one server core
 * (`bindings/server/server-options.ts`): one chain per agent (interceptors, limits), one identity
 * hook and failed-authentication limiter, one compat layer, and cards that list every listener's
 * interfaces, in both directions. It owns the listeners and their orderly shutdown.
 *
 * gRPC is loaded when its listener starts (grpc-js and the protobuf code are big), so that a
 * server without `grpc` never loads them; `createNodeServer` and `createGrpcServer` remain for an
 * application that embeds either listener in a server of its own.
 */

import { GRPC_BINDING } from '../protocol/protocol-bindings.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import type { AgentInterface } from '../protocol/generated/types.js';
import type { A2AGrpcServer, GrpcListener } from '../bindings/grpc/grpc-listener.js';
import { resolveGrpcOptions, type GrpcOptions } from '../bindings/grpc/grpc-options.js';
import { ServerCore, type ServerCoreOptions } from '../bindings/server/server-options.js';
import {
  serveOverNode,
  type A2ANodeServer,
  type NodeServerOptions,
  type ShutdownOptions,
} from '../http/adapters/node.js';
import { createHttpCore } from '../http/http-core.js';
import type { HttpOptions } from '../http/http-options.js';
import { listenErrorOf } from './listen-error.js';

/** Where listeners bind by default: loopback only. */
const DEFAULT_HOST = '127.0.0.1';

/** The HTTP listener: where it listens, and HTTP's own options. */
export interface HttpListenerOptions extends HttpOptions, NodeServerOptions {
  /** Default 0: any free port. */
  readonly port?: number | undefined;
  /** Default `127.0.0.1` (loopback only; `0.0.0.0` or `::` accept remote clients). */
  readonly host?: string | undefined;
  /** The queue of connections the kernel holds until accepted. Default 4096. */
  readonly backlog?: number | undefined;
}

/** The gRPC listener: where it listens, and gRPC's own options. */
export interface GrpcListenerOptions extends GrpcOptions {
  /** Default 0: any free port. */
  readonly port?: number | undefined;
  /** Default `127.0.0.1`. */
  readonly host?: string | undefined;
}

/** Options of {@link createA2AServer}: the server's core, and the listeners to serve it on. */
export interface A2AServerOptions extends ServerCoreOptions {
  /** Serve the HTTP bindings (JSON-RPC, HTTP+JSON by default) and the agent cards. */
  readonly http?: HttpListenerOptions | undefined;
  /** Serve the gRPC binding, on a port of its own. */
  readonly grpc?: GrpcListenerOptions | undefined;
}

/** Where a server listens. */
export interface A2AServerAddress {
  /** The HTTP listener's port, bound host and base URL, when it serves one. */
  readonly http: { readonly port: number; readonly host: string; readonly url: string } | undefined;
  /** The gRPC listener's port and the `host:port` clients use, when it serves one. */
  readonly grpc: { readonly port: number; readonly address: string } | undefined;
}

/** A server of agents on every binding. */
export interface A2AServer {
  /**
   * Starts every listener — gRPC first, so that the first card served already lists it — and
   * resolves with where each listens. Once only: later calls return the same promise.
   *
   * @throws ListenError naming the listener that could not listen and why, once every listener
   *   started before it has stopped again (nothing is left holding a port).
   */
  listen(): Promise<A2AServerAddress>;
  /** The HTTP listener, when the server has one (e.g. to attach to a lifecycle). */
  readonly http: A2ANodeServer | undefined;
  /** The gRPC listener, once `listen()` has started it. */
  readonly grpc: A2AGrpcServer | undefined;
  /**
   * Every interface of the agent mounted at `path`, as its cards list them (under `publicUrl`, or
   * the HTTP listener's URL); empty for no such agent.
   */
  interfacesOf(path: string): AgentInterface[];
  /**
   * Graceful shutdown of every listener: no new connections or calls, in-flight calls and
   * streams may finish up to the deadline (every agent's handler is shut down once), then what
   * is left is cut. Idempotent.
   */
  shutdown(options?: ShutdownOptions): Promise<void>;
}

/**
 * Creates a server of `options.agents` on the listeners `options.http` and `options.grpc` ask
 * for; call `listen()` to start it.
 *
 * @throws ConfigurationError for invalid options or an invalid agent card.
 */
export function createA2AServer(options: A2AServerOptions): A2AServer {
  const httpOptions = options.http;
  const grpcOptions = options.grpc === undefined ? undefined : resolveGrpcOptions(options.grpc);
  if (httpOptions === undefined && grpcOptions === undefined) {
    throw new ConfigurationError(
      'createA2AServer serves no listener: give http: { port } or grpc: { port } (or both)',
    );
  }
  const core = new ServerCore(options);
  let grpc: GrpcListener | undefined;
  if (grpcOptions !== undefined) {
    // Declared now, so that cards list gRPC and preferredBinding may name it; filled at listen.
    core.serveOn(
      {
        interfacesOf: (mount, baseUrl) => grpc?.interfaces.interfacesOf(mount, baseUrl) ?? [],
        bindingsOf: () => [GRPC_BINDING],
      },
      'other',
    );
  }
  const http =
    httpOptions === undefined
      ? undefined
      : serveOverNode(createHttpCore(httpOptions, core), httpOptions);
  core.checkPreferredBinding();

  async function listen(): Promise<A2AServerAddress> {
    let grpcAddress: A2AServerAddress['grpc'];
    if (grpcOptions !== undefined) {
      const { createGrpcListener } = await import('../bindings/grpc/grpc-listener.js');
      grpc = createGrpcListener(core, grpcOptions);
      const port = options.grpc?.port ?? 0;
      const host = options.grpc?.host ?? DEFAULT_HOST;
      try {
        grpcAddress = await grpc.server.listen({ port, host });
      } catch (error) {
        throw listenErrorOf('grpc', host, port, error);
      }
    }
    if (http === undefined) return { http: undefined, grpc: grpcAddress };
    const port = httpOptions?.port ?? 0;
    const host = httpOptions?.host ?? DEFAULT_HOST;
    try {
      const httpAddress = await http.listen({ port, host, backlog: httpOptions?.backlog });
      return { http: httpAddress, grpc: grpcAddress };
    } catch (error) {
      // The gRPC listener holds its port already: a server that cannot serve must not keep it.
      await grpc?.server.shutdown({ deadlineMs: 0 });
      throw listenErrorOf('http', host, port, error);
    }
  }

  async function shutdown(shutdownOptions: ShutdownOptions): Promise<void> {
    // Each listener stops taking calls and waits for its own; the agents are shut down once.
    const results = await Promise.allSettled([
      http?.shutdown(shutdownOptions),
      grpc?.server.shutdown(shutdownOptions),
      core.shutdownAgents(shutdownOptions),
    ]);
    const failures = [
      ...new Set(results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []))),
    ];
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, 'the server failed to shut down');
  }

  let listening: Promise<A2AServerAddress> | undefined;
  let shuttingDown: Promise<void> | undefined;
  return {
    http,
    get grpc() {
      return grpc?.server;
    },
    listen() {
      listening ??= listen();
      return listening;
    },
    interfacesOf(path) {
      const mount = core.agentAt(path);
      const base = core.publicUrl ?? core.httpBaseUrl ?? 'http://localhost';
      return mount === undefined ? [] : core.interfacesOf(mount, base);
    },
    shutdown(shutdownOptions = {}) {
      shuttingDown ??= shutdown(shutdownOptions);
      return shuttingDown;
    },
  };
}
