/**
 * The gRPC binding, server half (spec 10): the implementation of `lf.a2a.v1.A2AService` that
 * grpc-js calls for every method. It only decodes and frames; the call itself is the shared
 * pipeline (`server/server-call.ts`) over the same request handler as JSON-RPC and HTTP+JSON:
 * 1. the identity hook (`identifyCaller`, as over HTTP) on the metadata, the peer address and the
 *    verified TLS client certificate — a refusal is `UNAUTHENTICATED` (or `PERMISSION_DENIED`),
 *    with the challenges in `www-authenticate` metadata; an address that failed too often is
 *    `RESOURCE_EXHAUSTED` with `retry-after` metadata;
 * 2. `a2a-version` metadata (spec 10.2), with the rule of every binding (`negotiateVersion`);
 * 3. the request message decoded to ProtoJSON (`grpc-codec.ts`) and validated by `parseRequest`;
 * 4. the agent the request's `tenant` routes to (`GrpcAgentRouter`), the call opened with
 *    `a2a-extensions` metadata, the operation invoked; activated extensions are answered in
 *    `a2a-extensions` response metadata;
 * 5. errors as the status codes of spec 5.4 with the binary `google.rpc.Status` in
 *    `grpc-status-details-bin` (`grpc-status.ts`); a limit hit (`LimitExceededError`) is
 *    `RESOURCE_EXHAUSTED` with `retry-after` metadata.
 * Streams are written by `GrpcEventStream`; a client that cancels releases the subscription.
 */

import {
  Metadata,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
} from '@grpc/grpc-js';
import {
  AuthenticationError,
  CallAuthenticationRequest,
  identifyCaller,
  type Authenticator,
  type IdentityCheck,
  type IdentityVerdict,
} from '../server/authentication.js';
import type { FailedAuthenticationLimiter } from '../server/failed-authentication-limiter.js';
import { CallLog } from '../server/call-log.js';
import { taskIdOf } from '../server/call-report.js';
import {
  invokeOperation,
  negotiateVersion,
  openCall,
  openStream,
  parseRequest,
  refusalOf,
  wireErrorOf,
  type OpenedCall,
  type StreamingOperation,
  type UnaryOperation,
} from '../server/server-call.js';
import { parseLastEventId } from '../server/last-event-id.js';
import { EXTENSIONS_HEADER } from '../server/service-parameters.js';
import type { AgentInterface } from '../../protocol/generated/types.js';
import type { OperationName, OperationRequest } from '../../protocol/operations.js';
import { GRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { LimitExceededError } from '../../runtime/call-limit-options.js';
import type { Principal } from '../../runtime/call-context.js';
import type { Logger } from '../../runtime/logger.js';
import type { A2ARequestHandler } from '../../runtime/request-handler.js';
import { GrpcCallSource, MetadataReader } from './grpc-call-source.js';
import type { GrpcMethod } from './grpc-codec.js';
import { GrpcEventStream } from './grpc-event-stream.js';
import { GrpcCode, STATUS_DETAILS_KEY, encodeStatus, statusOfError } from './grpc-status.js';

/** The agent a request is routed to, and the tenant its call context gets. */
export interface RoutedAgent {
  readonly handler: A2ARequestHandler;
  /** The tenant of the call context: the request's, unless it only served to pick the agent. */
  readonly tenant: string;
  /** The agent's interfaces, for `GetExtendedAgentCard`. */
  readonly interfaces: () => AgentInterface[];
}

/**
 * Picks the agent of a request by its `tenant` field; `authority` is the call's `:authority`
 * (the host and port the client reached), for the interfaces of an extended card.
 *
 * @throws InvalidParamsError naming `tenant` when no agent is served under it.
 */
export type GrpcAgentRouter = (tenant: string, authority: string) => RoutedAgent;

/** What the service implementation is created with. */
export interface GrpcServiceContext {
  readonly route: GrpcAgentRouter;
  readonly authenticate: Authenticator;
  /** Failed authentications per address; `undefined` for no limit. */
  readonly failures?: FailedAuthenticationLimiter | undefined;
  readonly logger: Logger;
}

/** A status as grpc-js sends it. */
interface ServerStatus {
  readonly code: number;
  readonly details: string;
  readonly metadata: Metadata;
}

/** A call prepared by steps 1-4, ready to invoke. */
interface PreparedCall<N extends OperationName> {
  readonly agent: RoutedAgent;
  readonly opened: OpenedCall;
  readonly request: OperationRequest<N>;
  readonly principal: Principal;
}

/** Why a call ended before its operation ran (an authentication refusal, a held-off address). */
class Refused {
  constructor(readonly status: ServerStatus) {}
}

function authenticationStatus(error: AuthenticationError): ServerStatus {
  const metadata = new Metadata();
  if (error.challenges.length > 0) metadata.set('www-authenticate', error.challenges.join(', '));
  return {
    code: error.status === 401 ? GrpcCode.UNAUTHENTICATED : GrpcCode.PERMISSION_DENIED,
    details: error.message,
    metadata,
  };
}

function extensionsMetadata(activated: readonly string[]): Metadata | undefined {
  if (activated.length === 0) return undefined;
  const metadata = new Metadata();
  metadata.set(EXTENSIONS_HEADER.toLowerCase(), activated.join(', '));
  return metadata;
}

/** The implementation of `lf.a2a.v1.A2AService` for grpc-js, by method. */
export class GrpcA2AService {
  readonly #context: GrpcServiceContext;
  readonly #identity: IdentityCheck;
  readonly #calls: CallLog;

  constructor(context: GrpcServiceContext) {
    this.#context = context;
    this.#identity = {
      authenticate: context.authenticate,
      failures: context.failures,
      logger: context.logger,
    };
    this.#calls = new CallLog(context.logger);
  }

  /** The status a thrown value is answered with (logged when it is not an A2A error). */
  statusOf(error: unknown, operation: OperationName): ServerStatus & { readonly reason?: string } {
    const refusal = refusalOf(error);
    if (refusal !== undefined) {
      const metadata = new Metadata();
      for (const [name, value] of Object.entries(refusal.headers ?? {})) metadata.set(name, value);
      const encoded = encodeStatus(GrpcCode.RESOURCE_EXHAUSTED, refusal.message, []);
      metadata.set(STATUS_DETAILS_KEY, Buffer.from(encoded.details));
      return { code: encoded.code, details: refusal.message, metadata };
    }
    const wire = wireErrorOf(error, this.#context.logger, { binding: GRPC_BINDING, operation });
    const encoded = statusOfError(wire);
    const metadata = new Metadata();
    metadata.set(STATUS_DETAILS_KEY, Buffer.from(encoded.details));
    return {
      code: encoded.code,
      details: encoded.message,
      metadata,
      ...(wire.reason === undefined ? {} : { reason: wire.reason }),
    };
  }

  /** Steps 1-4 of every call; synchronous when the authenticator is (the anonymous one is). */
  #prepare<N extends OperationName>(
    method: GrpcMethod,
    call: ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>,
  ): PreparedCall<N> | Refused | Promise<PreparedCall<N> | Refused> {
    const source = new GrpcCallSource(call);
    const headers = new MetadataReader(call.metadata);
    const identified = identifyCaller(
      this.#identity,
      new CallAuthenticationRequest(GRPC_BINDING, headers, '', source),
      method.path,
    );
    return identified instanceof Promise
      ? identified.then((verdict) => this.#prepared<N>(method, call, source, headers, verdict))
      : this.#prepared<N>(method, call, source, headers, identified);
  }

  #prepared<N extends OperationName>(
    method: GrpcMethod,
    call: ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>,
    source: GrpcCallSource,
    headers: MetadataReader,
    verdict: IdentityVerdict,
  ): PreparedCall<N> | Refused {
    if (verdict instanceof AuthenticationError) return new Refused(authenticationStatus(verdict));
    if (verdict instanceof LimitExceededError) {
      return new Refused(this.statusOf(verdict, method.operation));
    }
    const version =
      method.protocolVersion === undefined
        ? negotiateVersion(headers.get('a2a-version')).text
        : method.protocolVersion;
    const request = parseRequest(method.operation as N, method.request.decode(call.request));
    const tenant = (request as { tenant?: unknown }).tenant;
    const agent = this.#context.route(typeof tenant === 'string' ? tenant : '', call.getHost());
    const opened = openCall(
      agent.handler,
      {
        principal: verdict,
        tenant: agent.tenant,
        protocolVersion: version,
        extensions: headers.get('a2a-extensions'),
        afterSeq:
          method.operation === 'SubscribeToTask'
            ? parseLastEventId(headers.get('last-event-id'))
            : undefined,
      },
      source,
    );
    return { agent, opened, request, principal: verdict };
  }

  /** Serves a unary method. */
  async unary(
    method: GrpcMethod,
    call: ServerUnaryCall<Buffer, Buffer>,
    callback: sendUnaryData<Buffer>,
  ): Promise<void> {
    const operation = method.operation as UnaryOperation;
    const start = this.#calls.enabled ? performance.now() : 0;
    let request: unknown;
    let principal: Principal | undefined;
    try {
      const preparing = this.#prepare<UnaryOperation>(method, call);
      const prepared = preparing instanceof Promise ? await preparing : preparing;
      if (prepared instanceof Refused) {
        callback(prepared.status);
        this.#log(method, prepared.status.code, { taskId: undefined, principal }, start);
        return;
      }
      request = prepared.request;
      principal = prepared.principal;
      const result = await invokeOperation(
        prepared.agent.handler,
        operation,
        prepared.opened.call,
        prepared.request as never,
        { agentInterfaces: prepared.agent.interfaces },
      );
      const metadata = extensionsMetadata(prepared.opened.activatedExtensions);
      if (metadata !== undefined) call.sendMetadata(metadata);
      const encoded = method.response.encode(result);
      // A view of the encoded bytes, not a copy: nothing else holds them.
      callback(null, Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength));
      if (this.#calls.enabled) {
        this.#log(method, GrpcCode.OK, { taskId: taskIdOf(request, result), principal }, start);
      }
    } catch (error) {
      const status = this.statusOf(error, operation);
      callback(status);
      this.#log(
        method,
        status.code,
        { taskId: taskIdOf(request, undefined), reason: status.reason, principal },
        start,
      );
    }
  }

  /** Serves a server-streaming method. */
  async stream(method: GrpcMethod, call: ServerWritableStream<Buffer, Buffer>): Promise<void> {
    const operation = method.operation as StreamingOperation;
    const start = this.#calls.enabled ? performance.now() : 0;
    let request: unknown;
    let principal: Principal | undefined;
    try {
      const preparing = this.#prepare<StreamingOperation>(method, call);
      const prepared = preparing instanceof Promise ? await preparing : preparing;
      if (prepared instanceof Refused) {
        call.emit('error', prepared.status);
        this.#log(method, prepared.status.code, { taskId: undefined, principal }, start);
        return;
      }
      request = prepared.request;
      principal = prepared.principal;
      const events = await openStream(
        prepared.agent.handler,
        operation,
        prepared.opened.call,
        prepared.request as never,
      );
      const stream = new GrpcEventStream(events, call, this, operation, this.#context.logger, {
        codec: method.response,
        headers: extensionsMetadata(prepared.opened.activatedExtensions),
        afterSeq: prepared.opened.call.afterSeq,
      });
      stream.onFinish((code, reason) =>
        this.#log(
          method,
          code,
          { taskId: taskIdOf(request, stream.firstPayload), reason, principal },
          start,
        ),
      );
      stream.start();
    } catch (error) {
      const status = this.statusOf(error, operation);
      call.emit('error', status);
      this.#log(
        method,
        status.code,
        { taskId: taskIdOf(request, undefined), reason: status.reason, principal },
        start,
      );
    }
  }

  #log(
    method: GrpcMethod,
    code: number,
    outcome: {
      readonly taskId: string | undefined;
      readonly reason?: string | undefined;
      readonly principal: Principal | undefined;
    },
    start: number,
  ): void {
    if (!this.#calls.enabled) return;
    this.#calls.write({
      // A gRPC call is an HTTP/2 POST to the method's path.
      method: 'POST',
      path: method.path,
      status: code,
      principal: outcome.principal,
      report: {
        binding: GRPC_BINDING,
        operation: method.operation,
        taskId: outcome.taskId,
        errorCode: code === GrpcCode.OK ? undefined : code,
        errorReason: outcome.reason,
      },
      startMs: start,
    });
  }
}
