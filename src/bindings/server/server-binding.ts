/**
 * The seam between the HTTP server and a protocol binding served over HTTP (JSON-RPC, HTTP+JSON):
 * a binding declares its interface (the `protocolBinding` of the agent card and the path of its URL
 * below the agent's) and its routes (method, path template, handler), and the HTTP core routes over
 * whatever bindings are mounted, per agent. The core owns what every binding shares — routing, the
 * identity hook, CORS, the agent card, the request log; the binding owns its wire format, including
 * the form in which it refuses a request (an unauthenticated call, a method the route does not
 * allow). A new HTTP binding is one such object and a line in the server's options.
 *
 * gRPC does not go through HTTP routes (it has its own HTTP/2 listener); it shares the call pipeline
 * (`server-call.ts`) and the identity hook (`authentication.ts`) instead.
 */

import type { HttpRequest, HttpResponse } from './http-exchange.js';
import type { AgentInterface } from '../../protocol/generated/types.js';
import type { Principal } from '../../runtime/call-context.js';
import type { Logger } from '../../runtime/logger.js';
import type { AgentEndpoint } from './agent-endpoint.js';
import type { CallReport } from './call-report.js';
import type { AgentInterfaceSource, CallSource } from './prepare-call.js';

/** An HTTP method a route answers. */
export type RouteMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A request routed to a binding: the call's source for `prepareCall` (its binding, principal,
 * headers as service parameters, query, signal and peer), and the agent's interfaces under the
 * URL it came to.
 */
export interface BindingRequest extends CallSource, AgentInterfaceSource {
  readonly http: HttpRequest;
  /** The path variables of the route's template, percent-decoded (`{ id: 'task-1' }`). */
  readonly params: Readonly<Record<string, string>>;
  /** Who is calling, as the identity hook decided. */
  readonly principal: Principal;
}

/** A binding's answer and what it reports about the call. */
export interface BindingReply {
  readonly response: HttpResponse;
  /**
   * The call as the request log sees it. For a stream, read it once the stream has finished
   * ({@link StreamReport}): its outcome is known only then.
   */
  readonly report: CallReport;
}

/** A report whose outcome is known when its stream has finished. */
export interface StreamReport extends CallReport {
  /** Calls `listener` once, when the stream has ended however it ended. */
  onFinish(listener: () => void): void;
}

/** One route of a binding. */
export interface BindingRoute {
  readonly method: RouteMethod;
  /**
   * The path template below the interface's path: `''` for the interface URL itself,
   * `/message:send`, `/tasks/{id}:cancel`, `/{tenant}/tasks/{id}`. A variable matches one whole
   * path segment, or the start of one before a literal suffix (`{id}:cancel`).
   */
  readonly path: string;
  handle(request: BindingRequest): Promise<BindingReply>;
}

/** Why the core refused a request before (or instead of) a binding's route. */
export interface HttpRefusal {
  readonly status: number;
  /** The `google.rpc.Code` name of the refusal (`UNAUTHENTICATED`, `NOT_FOUND`...). */
  readonly code: string;
  /** What the client should do; safe to show (no credentials, no task existence). */
  readonly message: string;
  /** Headers to send with it (`allow`, `www-authenticate`, `retry-after`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A protocol binding mounted for one agent. */
export interface ServerBinding {
  /** As written in `AgentInterface.protocolBinding`: `JSONRPC`, `HTTP+JSON`, or a URI. */
  readonly protocolBinding: string;
  /** The `protocolVersion` of its interface. */
  readonly protocolVersion: string;
  /** Its interface's path below the agent's path (`/a2a`), `''` for the agent's path itself. */
  readonly path: string;
  readonly routes: readonly BindingRoute[];
  /** Answers a refusal in the binding's own error form (JSON-RPC error body, `google.rpc.Status`). */
  refuse(refusal: HttpRefusal, request: HttpRequest): HttpResponse;
  /**
   * Answers a call refused before the binding (authentication), when the binding says more of it
   * than {@link refuse} can without reading the request (JSON-RPC echoes the request's id).
   */
  refuseCall?(refusal: HttpRefusal, request: HttpRequest): Promise<HttpResponse>;
}

/** What a binding is created with, for each agent it serves. */
export interface BindingContext {
  /** The agent: its operations through the server's interceptors and limits. */
  readonly endpoint: AgentEndpoint;
  readonly logger: Logger;
  /** Largest accepted request body, in bytes. */
  readonly maxBodyBytes: number;
  /** The agent's interfaces under the base URL of a request (for `GetExtendedAgentCard`). */
  readonly agentInterfaces: (request: HttpRequest) => AgentInterface[];
}

/**
 * Creates a binding for one agent. Server options list factories (`jsonRpcBinding()`,
 * `restBinding()`), so that each agent gets bindings of its own over its own handler.
 */
export type ServerBindingFactory = (context: BindingContext) => ServerBinding;
