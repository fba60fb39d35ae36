/**
 * The JSON-RPC binding over HTTP (spec 9.1), as the server mounts it: `POST` to the interface URL
 * (and to the same URL with a trailing slash, which some clients send) with a JSON body, answered
 * with HTTP 200 and a JSON-RPC response (errors included), 204 for a notification, or
 * `text/event-stream` for the streaming methods. The transport-level refusals happen here, before
 * the JSON-RPC server sees anything, and still answer with a JSON-RPC error body so that JSON-RPC
 * clients can read them:
 * - 415 with ContentTypeNotSupportedError (-32005) for a `Content-Type` other than
 *   `application/json` or `application/a2a+json` (a missing one is accepted: some clients omit it and the body is parsed as JSON anyway);
 * - 413 for a body over `maxBodyBytes`, refused from `Content-Length` before reading anything,
 *   or as soon as the limit is crossed while reading; the connection is then closed, since the
 *   rest of the body is never read;
 * - whatever the server refuses before the binding (401 without credentials, 405).
 */

import {
  ContentTypeNotSupportedError,
  InvalidRequestError,
  type A2AError,
} from '../../protocol/errors.js';
import {
  BODY_TOO_LARGE,
  type HeaderReader,
  type HttpRequest,
  type HttpResponse,
  type PeerIdentity,
} from '../server/http-exchange.js';
import { ConfigurationError } from '../../protocol/local-errors.js';
import type { OperationName } from '../../protocol/operations.js';
import { JSONRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { CURRENT_PROTOCOL_VERSION } from '../../protocol/version.js';
import type { Principal } from '../../runtime/call-context.js';
import type { AgentInterface } from '../../protocol/generated/types.js';
import type { CallReport } from '../server/call-report.js';
import { formatBytes, mediaTypeOf, sseHeaders } from '../server/http-media.js';
import type {
  BindingContext,
  BindingReply,
  BindingRequest,
  HttpRefusal,
  ServerBinding,
  ServerBindingFactory,
} from '../server/server-binding.js';
import { echoExtensions } from '../server/service-parameters.js';
import { StreamCallReport } from '../server/stream-report.js';
import { normalizeUrlPath } from '../server/url-path.js';
import {
  NULL_ID_TOKEN,
  errorEnvelope,
  idTokenOf,
  isCallRefusal,
  refusedCallEnvelope,
} from './jsonrpc-envelope.js';
import {
  createJsonRpcHandler,
  taskIdOfReply,
  type JsonRpcBodyReply,
  type JsonRpcEmptyReply,
  type JsonRpcHandler,
  type JsonRpcReply,
  type JsonRpcRequestInput,
} from './jsonrpc-server.js';

/** Options of {@link jsonRpcBinding}. */
export interface JsonRpcBindingOptions {
  /** The endpoint below each agent's path, e.g. `/rpc`; not empty. Default {@link DEFAULT_RPC_PATH}. */
  readonly path?: string | undefined;
}

/** The JSON-RPC endpoint below an agent's path when none is configured. */
export const DEFAULT_RPC_PATH = '/a2a';

const ACCEPTED_MEDIA_TYPES = new Set(['application/json', 'application/a2a+json']);

/** A JSON-RPC error body for a refusal (id `null`: the request was not read). */
function refusalBody(error: A2AError): string {
  return errorEnvelope(NULL_ID_TOKEN, error);
}

function refusalResponse(
  status: number,
  error: A2AError,
  extraHeaders?: Readonly<Record<string, string>>,
): HttpResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extraHeaders };
  return { status, headers, body: refusalBody(error), closeConnection: status === 413 };
}

/**
 * The JSON-RPC binding, at `options.path` below each agent's path.
 *
 * @throws ConfigurationError for a path that is not a URL path, or is empty: the JSON-RPC endpoint
 *   needs a path of its own beside the agent's card and its other bindings.
 */
export function jsonRpcBinding(options: JsonRpcBindingOptions = {}): ServerBindingFactory {
  const path = normalizeUrlPath('jsonRpcBinding path', options.path ?? DEFAULT_RPC_PATH);
  if (path === '') {
    throw new ConfigurationError(
      "jsonRpcBinding path must not be empty: the JSON-RPC endpoint needs a path of its own, e.g. '/a2a'",
    );
  }
  return (context) => new JsonRpcHttpBinding(path, context);
}

class JsonRpcHttpBinding implements ServerBinding {
  readonly protocolBinding = JSONRPC_BINDING;
  readonly protocolVersion = CURRENT_PROTOCOL_VERSION;
  readonly path: string;
  readonly routes;
  readonly #rpc: JsonRpcHandler;
  readonly #context: BindingContext;

  constructor(path: string, context: BindingContext) {
    this.path = path;
    this.#context = context;
    this.#rpc = createJsonRpcHandler(context.endpoint, { logger: context.logger });
    const handle = (request: BindingRequest): Promise<BindingReply> => this.#serve(request);
    this.routes = [
      { method: 'POST', path: '', handle },
      { method: 'POST', path: '/', handle },
    ] as const;
  }

  refuse(refusal: HttpRefusal, _request: HttpRequest): HttpResponse {
    return refusedResponse(refusal, NULL_ID_TOKEN);
  }

  /**
   * A call refused before the binding (authentication) answered with the request's id: the body
   * is read (within `maxBodyBytes`) for it, and the id is `null` only when it does not parse.
   */
  async refuseCall(refusal: HttpRefusal, request: HttpRequest): Promise<HttpResponse> {
    let idToken = NULL_ID_TOKEN;
    try {
      const body = await request.readBody(this.#context.maxBodyBytes);
      if (body !== BODY_TOO_LARGE) idToken = requestIdToken(body);
    } catch (error) {
      // The client aborted the upload: the refusal is answered without its id.
      this.#context.logger.debug({ err: error }, 'reading a refused request body failed');
    }
    return refusedResponse(refusal, idToken);
  }

  async #serve(routed: BindingRequest): Promise<BindingReply> {
    const request = routed.http;
    const { maxBodyBytes, logger } = this.#context;
    const contentType = request.get('content-type');
    if (contentType && !ACCEPTED_MEDIA_TYPES.has(mediaTypeOf(contentType))) {
      const message =
        `Content-Type ${JSON.stringify(contentType)} is not supported; send the JSON-RPC request ` +
        'as application/json';
      return refused(415, new ContentTypeNotSupportedError(message));
    }
    const declared = request.get('content-length');
    if (declared && Number(declared) > maxBodyBytes) return tooLarge(maxBodyBytes);
    let body: string | Uint8Array | typeof BODY_TOO_LARGE;
    try {
      body = await request.readBody(maxBodyBytes);
    } catch (error) {
      // The client aborted the upload; nobody is left to read the answer, but answer anyway.
      logger.debug({ err: error }, 'reading a request body failed');
      const response = refusalResponse(
        400,
        new InvalidRequestError('The request body could not be read'),
      );
      return { response: { ...response, closeConnection: true }, report: refusedReport(400) };
    }
    if (body === BODY_TOO_LARGE) return tooLarge(maxBodyBytes);
    const reply = await this.#rpc(new RouteInput(body, routed));
    return { response: toHttpResponse(reply), report: reportOf(reply) };
  }
}

/** A refusal's response: a refused call's own error (401, 403, 429), else Invalid Request. */
function refusedResponse(refusal: HttpRefusal, idToken: string): HttpResponse {
  if (!isCallRefusal(refusal.status)) {
    return refusalResponse(
      refusal.status,
      new InvalidRequestError(refusal.message),
      refusal.headers,
    );
  }
  return {
    status: refusal.status,
    headers: { 'content-type': 'application/json', ...refusal.headers },
    body: refusedCallEnvelope(idToken, refusal),
  };
}

/** The id token of a request body, `null` when it is no JSON-RPC request with a valid id. */
function requestIdToken(body: string | Uint8Array): string {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    // Not JSON: JSON-RPC answers such a request with id null.
    return NULL_ID_TOKEN;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return NULL_ID_TOKEN;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? idTokenOf(text, id) : NULL_ID_TOKEN;
}

function tooLarge(maxBodyBytes: number): BindingReply {
  const message = `Request body exceeds the ${formatBytes(maxBodyBytes)} limit`;
  return refused(413, new InvalidRequestError(message));
}

function refused(status: number, error: A2AError): BindingReply {
  return { response: refusalResponse(status, error), report: refusedReport(error.code) };
}

function refusedReport(errorCode: number): CallReport {
  return {
    binding: JSONRPC_BINDING,
    operation: undefined,
    taskId: undefined,
    errorCode,
    errorReason: undefined,
  };
}

/**
 * The binding's view of one request: its body and the routed request as the call's source. A
 * class, not an object literal with getters: a literal with its own accessors gets a new hidden
 * class on every evaluation (costly in garbage collection on a path taken by every request).
 */
class RouteInput implements JsonRpcRequestInput {
  constructor(
    readonly body: string | Uint8Array,
    readonly routed: BindingRequest,
  ) {}

  get binding(): string {
    return this.routed.binding;
  }

  get principal(): Principal {
    return this.routed.principal;
  }

  get serviceParameters(): HeaderReader {
    return this.routed.serviceParameters;
  }

  get query(): string {
    return this.routed.query;
  }

  get signal(): AbortSignal {
    return this.routed.signal;
  }

  get peer(): PeerIdentity | undefined {
    return this.routed.peer;
  }

  agentInterfaces(): AgentInterface[] {
    return this.routed.agentInterfaces();
  }
}

/** The report of a reply that is not a stream, computed only when the request log reads it. */
class JsonRpcReport implements CallReport {
  readonly binding = JSONRPC_BINDING;
  readonly #reply: JsonRpcBodyReply | JsonRpcEmptyReply;

  constructor(reply: JsonRpcBodyReply | JsonRpcEmptyReply) {
    this.#reply = reply;
  }

  get operation(): OperationName | undefined {
    return this.#reply.method;
  }

  get taskId(): string | undefined {
    return taskIdOfReply(this.#reply);
  }

  get errorCode(): number | undefined {
    return this.#reply.errorCode;
  }

  get errorReason(): string | undefined {
    return this.#reply.errorReason;
  }
}

function reportOf(reply: JsonRpcReply): CallReport {
  return reply.kind === 'stream'
    ? new StreamCallReport(JSONRPC_BINDING, reply.method, reply.params, reply.stream)
    : new JsonRpcReport(reply);
}

function toHttpResponse(reply: JsonRpcReply): HttpResponse {
  let headers: Record<string, string>;
  let response: HttpResponse;
  switch (reply.kind) {
    case 'body':
      headers =
        reply.refusal === undefined
          ? { 'content-type': 'application/json' }
          : { 'content-type': 'application/json', ...reply.refusal.headers };
      response = { status: reply.refusal?.status ?? 200, headers, body: reply.body };
      break;
    case 'empty':
      headers = {};
      response = { status: 204, headers };
      break;
    case 'stream':
      headers = sseHeaders();
      response = { status: 200, headers, sse: reply.stream };
      break;
  }
  echoExtensions(headers, reply.activatedExtensions);
  return response;
}
