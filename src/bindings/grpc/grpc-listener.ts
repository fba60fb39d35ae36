/**
 * The gRPC listener of a server (spec 10) on @grpc/grpc-js: `lf.a2a.v1.A2AService` for every
 * agent of the server's core, plus health checking and server reflection
 * (`grpc-introspection.ts`), on a port of its own beside the HTTP listener, over the same agents'
 * chains — so that a task created through gRPC is the task JSON-RPC and HTTP+JSON see, and an
 * interceptor or a limit counts its calls with theirs. It declares its interfaces to the core,
 * which lists them in every card, and its extended cards list the core's other interfaces (the
 * HTTP ones under the HTTP listener's URL). With the core's compat layer, its service of the older
 * version (`a2a.v1.A2AService` of 0.3) is loaded when the listener starts and served beside.
 *
 * Plaintext by default; TLS with `tls` (and mutual TLS with `tls.ca`: a verified client
 * certificate reaches the identity hook; a client without one still connects, so that other
 * authentication methods keep working, as on HTTPS).
 */

import {
  Server,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { AgentInterface } from '../../protocol/generated/types.js';
import { ConfigurationError } from '../../protocol/local-errors.js';
import { GRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { CURRENT_PROTOCOL_VERSION } from '../../protocol/version.js';
import type { InterfaceSource, ServerCore } from '../server/server-options.js';
import { GrpcA2AService } from './grpc-a2a-service.js';
import { GrpcAgentRoutes, type GrpcAgent } from './grpc-agent-routes.js';
import { GRPC_METHODS, type GrpcMethod } from './grpc-codec.js';
import { isGrpcCompatService } from './grpc-compat-service.js';
import { authorityOf, credentialsOf, hostOfBaseUrl } from './grpc-credentials.js';
import type { ResolvedGrpcOptions } from './grpc-options.js';
import { addIntrospection } from './grpc-introspection.js';

/** A running (or ready) gRPC server. */
export interface A2AGrpcServer {
  /** The grpc-js server, e.g. to add services of your own before `listen`. */
  readonly server: Server;
  /**
   * Binds the port and starts serving. Defaults: port 0 (any free port), host `127.0.0.1`.
   * Resolves with the bound port and the `host:port` clients use.
   */
  listen(options?: {
    port?: number | undefined;
    host?: string | undefined;
  }): Promise<{ port: number; address: string }>;
  /**
   * The GRPC interfaces of the agent mounted at `path`, as a function of the base URL its card is
   * served under: for a server that serves the HTTP bindings apart, as that agent's mount
   * `interfaces`. Empty until listening.
   */
  interfacesOf(path: string): (baseUrl: string) => AgentInterface[];
  /**
   * Graceful shutdown: health answers `NOT_SERVING`, new calls are refused, each agent's handler
   * is shut down (running streams end), and calls still open at the deadline are cut.
   * Idempotent.
   */
  shutdown(options?: { deadlineMs?: number | undefined }): Promise<void>;
}

const DEFAULT_DEADLINE_MS = 10_000;

/** A gRPC listener, and its part in the agents' cards, for the core it serves to list. */
export interface GrpcListener {
  readonly server: A2AGrpcServer;
  readonly interfaces: InterfaceSource;
}

function serviceDefinition(methods: readonly GrpcMethod[]): ServiceDefinition {
  const identity = (value: Buffer): Buffer => value;
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of methods) {
    definition[method.operation] = {
      path: method.path,
      requestStream: false,
      responseStream: method.streaming,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
      originalName: method.path.slice(method.path.lastIndexOf('/') + 1),
    };
  }
  return definition;
}

/** Adds the methods of one service, each served by `service`. */
function addService(server: Server, service: GrpcA2AService, methods: readonly GrpcMethod[]) {
  const implementation: UntypedServiceImplementation = {};
  for (const method of methods) {
    implementation[method.operation] = method.streaming
      ? (call: ServerWritableStream<Buffer, Buffer>) => void service.stream(method, call)
      : (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) =>
          void service.unary(method, call, callback);
  }
  server.addService(serviceDefinition(methods), implementation);
}

/**
 * Creates the gRPC listener of `core`'s agents (call `listen()` to start it), and the interfaces
 * it serves them on, for the caller to declare to the core (`core.serveOn`).
 *
 * @throws ConfigurationError when two agents route from the same tenant.
 */
export function createGrpcListener(core: ServerCore, options: ResolvedGrpcOptions): GrpcListener {
  const { maxMessageBytes } = options;
  const publicHost =
    options.publicHost ??
    (core.publicUrl === undefined ? undefined : new URL(core.publicUrl).hostname);
  let boundPort: number | undefined;
  /** The versions the port serves: 1.0, and the compat layer's once its service is loaded. */
  const versions = [CURRENT_PROTOCOL_VERSION];

  const grpcInterfaces = (agent: GrpcAgent, host: string): AgentInterface[] => {
    const port = boundPort;
    if (port === undefined) return [];
    const tenant = agent.routeTenant;
    return versions.map((protocolVersion) => {
      const entry: AgentInterface = {
        url: authorityOf(publicHost ?? host, port),
        protocolBinding: GRPC_BINDING,
        protocolVersion,
      };
      if (tenant !== undefined && tenant !== '') entry.tenant = tenant;
      return entry;
    });
  };
  // An extended card answered over gRPC lists every interface, the HTTP ones under the HTTP
  // listener's URL; without one, the gRPC ones name the host the call came to.
  const routes = new GrpcAgentRoutes(core.agents, (agent, authority) =>
    core.interfacesOf(
      agent.mount,
      core.publicUrl ??
        core.httpBaseUrl ??
        `http://${authority.replace(/:\d+$/, '') || 'localhost'}`,
    ),
  );
  const interfaces: InterfaceSource = {
    interfacesOf: (mount, baseUrl) => {
      const agent = routes.at(mount.path);
      return agent === undefined ? [] : grpcInterfaces(agent, hostOfBaseUrl(baseUrl));
    },
    bindingsOf: () => [GRPC_BINDING],
  };

  const service = new GrpcA2AService({
    identity: core.identity,
    logger: core.logger,
    proxies: core.proxies,
    route: (tenant, authority) => routes.route(tenant, authority),
  });
  const server = new Server({
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': -1,
    // Channelz keeps per-call counters and traces for an admin service Tandem does not serve;
    // they cost every call.
    'grpc.enable_channelz': 0,
    interceptors: [...options.grpcInterceptors],
  });
  addService(server, service, [...GRPC_METHODS.values()]);
  const health = addIntrospection(server, {
    health: options.health,
    reflection: options.reflection,
  });

  /** The compat layer's service, added before the port is bound. */
  async function addCompatService(): Promise<void> {
    const compat = await core.compat?.serviceFor?.(GRPC_BINDING);
    if (compat === undefined) return;
    if (!isGrpcCompatService(compat)) {
      throw new ConfigurationError(
        `The compat layer for ${core.compat?.version ?? 'another version'} gave the gRPC listener a service it cannot serve`,
      );
    }
    addService(server, service, compat.methods);
    versions.push(compat.protocolVersion);
  }

  let listening: Promise<{ port: number; address: string }> | undefined;
  let shuttingDown: Promise<void> | undefined;
  const listener: A2AGrpcServer = {
    server,
    listen({ port = 0, host = '127.0.0.1' } = {}) {
      listening ??= addCompatService().then(
        () =>
          new Promise((resolve, reject) => {
            server.bindAsync(
              authorityOf(host, port),
              credentialsOf(options.tls),
              (error, bound) => {
                if (error !== null) {
                  reject(error);
                  return;
                }
                boundPort = bound;
                resolve({ port: bound, address: authorityOf(host, bound) });
              },
            );
          }),
      );
      return listening;
    },
    interfacesOf(path) {
      const agent = routes.at(path === '/' ? '' : path);
      if (agent === undefined) {
        throw new ConfigurationError(
          `No agent mounted at ${JSON.stringify(path)} is served over gRPC`,
        );
      }
      return (baseUrl) => grpcInterfaces(agent, hostOfBaseUrl(baseUrl));
    },
    shutdown(shutdownOptions = {}) {
      shuttingDown ??= shutdown(shutdownOptions.deadlineMs ?? DEFAULT_DEADLINE_MS);
      return shuttingDown;
    },
  };
  return { server: listener, interfaces };

  async function shutdown(deadlineMs: number): Promise<void> {
    health.notServing();
    const closed = new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    const agents = core.shutdownAgents({ deadlineMs }).catch((error: unknown) => {
      core.logger.error({ err: error }, 'an agent failed to shut down');
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs + 1_000);
    });
    await Promise.race([closed, deadline]);
    clearTimeout(timer);
    server.forceShutdown();
    await agents;
  }
}
