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
 * 4. the agent the request's `tenant` routes to (`GrpcAgentRouter`; a 0.3 call's tenant is its
 *    `a2a-tenant` metadata, the 0.3 messages having no such field), the call opened with
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
  CallAuthenticationRequest,
  identifyCaller,
  type IdentityCheck,
  type IdentityVerdict,
} from '../server/authentication.js';
import { CallLog } from '../server/call-log.js';
import { taskIdOf } from '../server/call-report.js';
import { prepareCall, type PreparedCall } from '../server/prepare-call.js';
import { refusalOf } from '../server/refusals.js';
import type { HttpRefusal } from '../server/server-binding.js';
import {
  wireErrorOf,
  type StreamingOperation,
  type UnaryOperation,
} from '../server/server-call.js';
import { EXTENSIONS_HEADER } from '../server/service-parameters.js';
import type { OperationName } from '../../protocol/operations.js';
import { GRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { V03_GRPC_TENANT_METADATA } from '../../protocol/v03-grpc-tenant.js';
import type { Principal } from '../../runtime/call-context.js';
import type { Logger } from '../../runtime/logger.js';
import { GrpcCallSource, type GrpcAgentRouter } from './grpc-call-source.js';
import type { GrpcMethod } from './grpc-codec.js';
import { GrpcEventStream } from './grpc-event-stream.js';
import { GrpcCode, STATUS_DETAILS_KEY, encodeStatus, statusOfError } from './grpc-status.js';

export type { GrpcAgentRouter };

/** What the service implementation is created with. */
export interface GrpcServiceContext {
  readonly route: GrpcAgentRouter;
  /** The identity hook, as the server's core resolved it. */
  readonly identity: IdentityCheck;
  readonly logger: Logger;
}

/** A status as grpc-js sends it. */
interface ServerStatus {
  readonly code: number;
  readonly details: string;
  readonly metadata: Metadata;
}

/** Why a call ended before its operation ran (an authentication refusal, a held-off address). */
class Refused {
  constructor(readonly status: ServerStatus) {}
}

/**
 * A refusal as a gRPC status: its code, the challenges or `retry-after` as metadata. A limit's
 * refusal carries the binary `google.rpc.Status` too, as errors do; the identity hook's does not,
 * as grpc-js's own `UNAUTHENTICATED` does not.
 */
function refusalStatus(refusal: HttpRefusal): ServerStatus {
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(refusal.headers ?? {})) metadata.set(name, value);
  const code = GrpcCode[refusal.code as keyof typeof GrpcCode] ?? GrpcCode.UNKNOWN;
  if (code === GrpcCode.RESOURCE_EXHAUSTED) {
    const encoded = encodeStatus(code, refusal.message, []);
    metadata.set(STATUS_DETAILS_KEY, Buffer.from(encoded.details));
  }
  return { code, details: refusal.message, metadata };
}

/**
 * A translated request of an older version with the tenant its call names in metadata: the 0.3
 * messages have no `tenant` field (`protocol/v03-grpc-tenant.ts`), and without it every 0.3 call
 * on a port of several agents would reach the same one.
 */
function withMetadataTenant(request: unknown, metadata: Metadata): unknown {
  const named = metadata.get(V03_GRPC_TENANT_METADATA)[0];
  if (
    typeof named !== 'string' ||
    named === '' ||
    typeof request !== 'object' ||
    request === null
  ) {
    return request;
  }
  return { ...request, tenant: named };
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
    this.#identity = context.identity;
    this.#calls = new CallLog(context.logger);
  }

  /** The status a thrown value is answered with (logged when it is not an A2A error). */
  statusOf(
    error: unknown,
    operation: OperationName,
  ): ServerStatus & { readonly reason?: string | undefined } {
    const refusal = refusalOf(error);
    if (refusal !== undefined) return refusalStatus(refusal);
    const wire = wireErrorOf(error, this.#context.logger, { binding: GRPC_BINDING, operation });
    const encoded = statusOfError(wire);
    const metadata = new Metadata();
    metadata.set(STATUS_DETAILS_KEY, Buffer.from(encoded.details));
    return { code: encoded.code, details: encoded.message, metadata, reason: wire.reason };
  }

  /** Steps 1-4 of every call; synchronous when the authenticator is (the anonymous one is). */
  #prepare<N extends OperationName>(
    method: GrpcMethod,
    call: ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>,
  ): PreparedCall<N> | Refused | Promise<PreparedCall<N> | Refused> {
    const source = new GrpcCallSource(call, this.#context.route);
    const identified = identifyCaller(
      this.#identity,
      new CallAuthenticationRequest(GRPC_BINDING, source.serviceParameters, '', source),
      method.path,
    );
    return identified instanceof Promise
      ? identified.then((verdict) => this.#prepared<N>(method, call, source, verdict))
      : this.#prepared<N>(method, call, source, identified);
  }

  #prepared<N extends OperationName>(
    method: GrpcMethod,
    call: ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>,
    source: GrpcCallSource,
    verdict: IdentityVerdict,
  ): PreparedCall<N> | Refused {
    const refusal = refusalOf(verdict);
    if (refusal !== undefined) return new Refused(refusalStatus(refusal));
    source.principal = verdict as Principal;
    const version = method.protocolVersion;
    const decoded = method.request.decode(call.request);
    return prepareCall(
      source,
      method.operation as N,
      version === undefined ? decoded : withMetadataTenant(decoded, call.metadata),
      source,
      // A service of an older version translates: its calls are at that version.
      version === undefined ? undefined : { protocolVersion: version, compatVersion: version },
    );
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
      principal = prepared.call.principal;
      const result = await prepared.endpoint.invoke(operation, prepared.call, prepared.request);
      const metadata = extensionsMetadata(prepared.call.activatedExtensions);
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
      principal = prepared.call.principal;
      const events = await prepared.endpoint.invoke<StreamingOperation>(
        operation,
        prepared.call,
        prepared.request,
      );
      const stream = new GrpcEventStream(events, call, this, operation, this.#context.logger, {
        codec: method.response,
        headers: extensionsMetadata(prepared.call.activatedExtensions),
        afterSeq: prepared.call.afterSeq,
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
