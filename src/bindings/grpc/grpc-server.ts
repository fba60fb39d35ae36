/**
 * A gRPC server for A2A agents (spec 10) on @grpc/grpc-js: `lf.a2a.v1.A2AService` for every
 * agent, plus health checking and server reflection (`grpc-introspection.ts`). It listens on a
 * port of its own beside the HTTP server, over the same request handlers, so that a task created
 * through gRPC is the task JSON-RPC and HTTP+JSON see; its agents list it in their cards through
 * {@link A2AGrpcServer.interfacesOf} (`A2AAgentMount.interfaces`).
 *
 * Several agents share one port by tenant (spec 4.4.6: a client sends the `tenant` of the
 * interface it uses with every request): each agent's GRPC interface declares the tenant that
 * routes to it — its mount's `tenant` when it has one, else its mount path without the leading
 * slash (`agents/dice`); an agent mounted at the root takes requests without a tenant, and
 * without one the first agent does. A tenant that only routes is not the task scope: the call
 * goes on without tenant, so the agent's tasks are the same through every binding. A single agent
 * takes every request, whatever its tenant.
 *
 * Plaintext by default; TLS with `tls` (and mutual TLS with `tls.ca`: a verified client
 * certificate reaches the identity hook; a client without one still connects, so that other
 * authentication methods keep working, as on HTTPS).
 */

import {
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerInterceptor as GrpcServerInterceptor,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { InvalidParamsError } from '../../protocol/errors.js';
import type { AgentInterface } from '../../protocol/generated/types.js';
import { integerOption } from '../../protocol/integer-option.js';
import { ConfigurationError } from '../../protocol/local-errors.js';
import { GRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { CURRENT_PROTOCOL_VERSION } from '../../protocol/version.js';
import { silentLogger, type Logger } from '../../runtime/logger.js';
import type { A2ARequestHandler } from '../../runtime/request-handler.js';
import {
  anonymousAuthenticator,
  type Authenticator,
  type ServerAuthentication,
} from '../server/authentication.js';
import {
  resolveFailedAuthentications,
  type FailedAuthenticationsOption,
} from '../server/failed-authentication-limiter.js';
import { createAgentEndpoint, type AgentEndpoint } from '../server/agent-endpoint.js';
import type { CallLimitsOptions } from '../server/call-limit-options.js';
import type { RoutedAgent } from '../server/prepare-call.js';
import type { ServerInterceptor } from '../server/server-interceptor.js';
import { GrpcA2AService } from './grpc-a2a-service.js';
import { GRPC_METHODS, type GrpcMethod } from './grpc-codec.js';
import { addIntrospection } from './grpc-introspection.js';

/** One agent served over gRPC. */
export interface GrpcAgentMount {
  /**
   * The agent's mount path on the HTTP server (`''` for the root): its routing tenant when
   * several agents share the port and it declares no `tenant`.
   */
  readonly path: string;
  readonly handler: A2ARequestHandler;
  /** The tenant its interfaces declare (`A2AAgentMount.tenant`); it also routes to the agent. */
  readonly tenant?: string | undefined;
  /**
   * Every interface of the agent, for the extended card answered over gRPC (which lists them all,
   * as over HTTP); e.g. `() => httpServer.interfacesOf(path)`. Default: its gRPC interface only.
   */
  readonly cardInterfaces?: (() => readonly AgentInterface[]) | undefined;
  /** Overrides {@link A2AGrpcServerOptions.limits} for this agent. */
  readonly limits?: CallLimitsOptions | undefined;
}

/** The server's TLS material, PEM-encoded. */
export interface GrpcTlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  /** CAs whose client certificates are verified and reported to the identity hook. */
  readonly ca?: string | Buffer | undefined;
}

/** Options of {@link createGrpcServer}. */
export interface A2AGrpcServerOptions {
  /** The agents; at least one. */
  readonly agents: readonly GrpcAgentMount[];
  /** The identity hook, as for HTTP (`A2AHandlerOptions.authenticate`). */
  readonly authenticate?: Authenticator | ServerAuthentication | undefined;
  /**
   * Brute-force protection, as for HTTP (`A2AHandlerOptions.failedAuthentications`): an address
   * that failed to authenticate too often is answered `RESOURCE_EXHAUSTED` with `retry-after`
   * metadata. Pass the HTTP server's `FailedAuthenticationLimiter` to count failures on both
   * together; `false` turns it off. Default: a limiter of its own with the default settings.
   */
  readonly failedAuthentications?: FailedAuthenticationsOption | undefined;
  /** Serve TLS instead of plaintext. */
  readonly tls?: GrpcTlsOptions | undefined;
  /** Largest accepted request message, in bytes. Default 4 MiB, as for HTTP bodies. */
  readonly maxMessageBytes?: number | undefined;
  /** Serve `grpc.health.v1.Health`. Default true. */
  readonly health?: boolean | undefined;
  /** Serve server reflection (v1 and v1alpha). Default true. */
  readonly reflection?: boolean | undefined;
  /**
   * The host clients reach the port at, for interface URLs. Default: the host of the URL the card
   * is served under (and for an extended card fetched over gRPC, the call's `:authority`).
   */
  readonly publicHost?: string | undefined;
  /** Request log (one `info` line per call) and unexpected errors. Default: silent. */
  readonly logger?: Logger | undefined;
  /**
   * Code around every operation of every agent (see `ServerInterceptor`), as for HTTP
   * (`A2AHandlerOptions.interceptors`), outermost first.
   */
  readonly interceptors?: readonly ServerInterceptor[] | undefined;
  /** Abuse limits per caller, as for HTTP (`A2AHandlerOptions.limits`). Default: none. */
  readonly limits?: CallLimitsOptions | undefined;
  /** grpc-js server interceptors around every call, at the transport (below the A2A call). */
  readonly grpcInterceptors?: readonly GrpcServerInterceptor[] | undefined;
  /**
   * A service of an older protocol version served beside `lf.a2a.v1.A2AService` over the same
   * agents (`v03GrpcService()`: `a2a.v1.A2AService` of A2A 0.3); the agents' cards list its
   * interface too. Default: none.
   */
  readonly compat?: GrpcCompatService | undefined;
}

/** A translating service beside the 1.0 one (see `A2AGrpcServerOptions.compat`). */
export interface GrpcCompatService {
  /** Its methods, each translating to and from its 1.0 operation in its codecs. */
  readonly methods: readonly GrpcMethod[];
  /** The `protocolVersion` of its interfaces (`0.3`). */
  readonly protocolVersion: string;
}

/** A running (or ready) gRPC server. */
export interface A2AGrpcServer {
  /** The grpc-js server, e.g. to add services of your own before `listen`. */
  readonly server: Server;
  /**
   * Binds the port and starts serving. Defaults: port 0 (any free port), host `127.0.0.1`.
   * Resolves with the bound port and the `host:port` clients use.
   */
  listen(options?: { port?: number; host?: string }): Promise<{ port: number; address: string }>;
  /**
   * The GRPC interface of the agent mounted at `path`, as a function of the base URL its card is
   * served under: pass it as that agent's `A2AAgentMount.interfaces`. Empty until listening.
   */
  interfacesOf(path: string): (baseUrl: string) => AgentInterface[];
  /**
   * Graceful shutdown: health answers `NOT_SERVING`, new calls are refused, each agent's handler
   * is shut down (running streams end), and calls still open at the deadline are cut.
   * Idempotent.
   */
  shutdown(options?: { deadlineMs?: number | undefined }): Promise<void>;
}

const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
const DEFAULT_DEADLINE_MS = 10_000;

interface AgentEntry {
  readonly mount: GrpcAgentMount;
  readonly endpoint: AgentEndpoint;
  /** The tenant that routes to it; `undefined` for the only agent (it takes every request). */
  readonly routeTenant: string | undefined;
}

/** The bare `host:port` of an interface URL (spec 10: gRPC interface URLs are authorities). */
function authorityOf(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

function hostOfBaseUrl(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return 'localhost';
  }
}

function serviceDefinition(methods: Iterable<GrpcMethod>): ServiceDefinition {
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

function credentialsOf(tls: GrpcTlsOptions | undefined): ServerCredentials {
  if (tls === undefined) return ServerCredentials.createInsecure();
  const toBuffer = (value: string | Buffer): Buffer =>
    typeof value === 'string' ? Buffer.from(value) : value;
  const credentials = ServerCredentials.createSsl(
    tls.ca === undefined ? null : toBuffer(tls.ca),
    [{ cert_chain: toBuffer(tls.cert), private_key: toBuffer(tls.key) }],
    tls.ca !== undefined,
  );
  // grpc-js asks for client certificates with `requestCert`, which Node pairs with
  // `rejectUnauthorized: true`: a client without a certificate could not connect at all. As on
  // HTTPS, it may (other authentication methods need it to); grpc-js reports only verified
  // certificates (`getAuthContext` checks `socket.authorized`).
  if (tls.ca !== undefined) {
    const options = credentials._getConstructorOptions() as { rejectUnauthorized?: boolean } | null;
    if (options !== null) options.rejectUnauthorized = false;
  }
  return credentials;
}

/**
 * Creates a gRPC server for `options.agents`; call `listen()` to start it.
 *
 * @throws ConfigurationError for invalid options.
 */
export function createGrpcServer(options: A2AGrpcServerOptions): A2AGrpcServer {
  if (options.agents.length === 0) {
    throw new ConfigurationError(
      'agents is empty; serve at least one agent: { path: "", handler }',
    );
  }
  const logger = options.logger ?? silentLogger;
  const maxMessageBytes = integerOption(
    'maxMessageBytes',
    options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    1,
    'bytes',
  );
  const several = options.agents.length > 1;
  const served = {
    interceptors: options.interceptors ?? [],
    limits: options.limits,
    logger,
  };
  const entries: AgentEntry[] = options.agents.map((mount) => ({
    mount,
    endpoint: createAgentEndpoint(mount.path, mount.handler, {
      ...served,
      limits: mount.limits ?? served.limits,
    }),
    routeTenant: mount.tenant ?? (several ? mount.path.replace(/^\/+/, '') : undefined),
  }));
  const byTenant = new Map<string, AgentEntry>();
  for (const entry of entries) {
    if (entry.routeTenant === undefined) continue;
    const other = byTenant.get(entry.routeTenant);
    if (other !== undefined) {
      throw new ConfigurationError(
        `The agents at "${other.mount.path}" and "${entry.mount.path}" both route from tenant ` +
          `${JSON.stringify(entry.routeTenant)} on the gRPC port; give one a tenant of its own`,
      );
    }
    byTenant.set(entry.routeTenant, entry);
  }
  const fallback = byTenant.get('') ?? entries[0];
  const authenticate =
    typeof options.authenticate === 'function'
      ? options.authenticate
      : (options.authenticate?.authenticate ?? anonymousAuthenticator);

  let boundPort: number | undefined;
  const interfaceOf = (entry: AgentEntry, host: string): AgentInterface[] => {
    if (boundPort === undefined) return [];
    const tenant = entry.routeTenant;
    const versions = [CURRENT_PROTOCOL_VERSION];
    if (options.compat !== undefined) versions.push(options.compat.protocolVersion);
    return versions.map((protocolVersion) => ({
      url: authorityOf(options.publicHost ?? host, boundPort as number),
      protocolBinding: GRPC_BINDING,
      protocolVersion,
      ...(tenant === undefined || tenant === '' ? {} : { tenant }),
    }));
  };

  const routed = (entry: AgentEntry, tenant: string, authority: string): RoutedAgent => ({
    endpoint: entry.endpoint,
    // The tenant that only picked the agent is not the scope of its tasks.
    tenant: entry.routeTenant === undefined || entry.mount.tenant !== undefined ? tenant : '',
    agentInterfaces: () =>
      entry.mount.cardInterfaces !== undefined
        ? entry.mount.cardInterfaces().map((item) => ({ ...item }))
        : interfaceOf(entry, authority.replace(/:\d+$/, '') || 'localhost'),
  });

  const service = new GrpcA2AService({
    authenticate,
    failures: resolveFailedAuthentications(
      options.failedAuthentications,
      options.authenticate !== undefined,
    ),
    logger,
    route(tenant, authority) {
      const only = entries.length === 1 ? entries[0] : undefined;
      if (only !== undefined) return routed(only, tenant, authority);
      const entry = byTenant.get(tenant) ?? (tenant === '' ? fallback : undefined);
      if (entry === undefined) {
        const known = [...byTenant.keys()].map((t) => JSON.stringify(t)).join(', ');
        throw InvalidParamsError.fromViolations([
          {
            field: 'tenant',
            description: `no agent is served under tenant ${JSON.stringify(tenant.slice(0, 100))} on this gRPC port; use the tenant of the GRPC interface in the agent's card (${known})`,
          },
        ]);
      }
      return routed(entry, tenant, authority);
    },
  });

  const server = new Server({
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': -1,
    // Channelz keeps per-call counters and traces for an admin service Tandem does not serve;
    // they cost every call.
    'grpc.enable_channelz': 0,
    interceptors: [...(options.grpcInterceptors ?? [])],
  });
  const services: Iterable<GrpcMethod>[] = [GRPC_METHODS.values()];
  if (options.compat !== undefined) services.push(options.compat.methods);
  for (const methods of services) {
    const list = [...methods];
    const implementation: UntypedServiceImplementation = {};
    for (const method of list) {
      implementation[method.operation] = method.streaming
        ? (call: ServerWritableStream<Buffer, Buffer>) => void service.stream(method, call)
        : (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) =>
            void service.unary(method, call, callback);
    }
    server.addService(serviceDefinition(list), implementation);
  }
  const health = addIntrospection(server, {
    health: options.health ?? true,
    reflection: options.reflection ?? true,
  });

  let shuttingDown: Promise<void> | undefined;
  return {
    server,
    listen({ port = 0, host = '127.0.0.1' } = {}) {
      return new Promise((resolve, reject) => {
        server.bindAsync(authorityOf(host, port), credentialsOf(options.tls), (error, bound) => {
          if (error !== null) {
            reject(error);
            return;
          }
          boundPort = bound;
          resolve({ port: bound, address: authorityOf(host, bound) });
        });
      });
    },
    interfacesOf(path) {
      const entry = entries.find((e) => e.mount.path === path);
      if (entry === undefined) {
        throw new ConfigurationError(
          `No agent mounted at ${JSON.stringify(path)} is served over gRPC`,
        );
      }
      return (baseUrl) => interfaceOf(entry, hostOfBaseUrl(baseUrl));
    },
    shutdown(shutdownOptions = {}) {
      shuttingDown ??= shutdown(shutdownOptions.deadlineMs ?? DEFAULT_DEADLINE_MS);
      return shuttingDown;
    },
  };

  async function shutdown(deadlineMs: number): Promise<void> {
    health.notServing();
    const closed = new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    const handlers = Promise.allSettled(
      entries.map((entry) => entry.mount.handler.shutdown({ deadlineMs })),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs + 1_000);
    });
    await Promise.race([closed, deadline]);
    clearTimeout(timer);
    server.forceShutdown();
    for (const result of await handlers) {
      if (result.status === 'rejected') {
        logger.error({ err: result.reason as unknown }, 'an agent failed to shut down');
      }
    }
  }
}
