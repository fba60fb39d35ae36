/**
 * The JSON-RPC endpoint of one agent over HTTP (spec 9.1): `POST` with a JSON body, answered with
 * HTTP 200 and a JSON-RPC response (errors included), 204 for a notification, or
 * `text/event-stream` for the streaming methods. The transport-level refusals happen here,
 * before the binding sees anything, and still answer with a JSON-RPC error body so that JSON-RPC
 * clients can read them:
 * - 415 for a `Content-Type` other than `application/json` or `application/a2a+json` (a missing
 *   one is accepted: some clients omit it and the body is parsed as JSON anyway);
 * - 413 for a body over `maxBodyBytes`, refused from `Content-Length` before reading anything,
 *   or as soon as the limit is crossed while reading; the connection is then closed, since the
 *   rest of the body is never read.
 */

import { EXTENSIONS_HEADER } from '../bindings/jsonrpc/service-parameters.js';
import { NULL_ID_TOKEN, errorEnvelope } from '../bindings/jsonrpc/jsonrpc-envelope.js';
import type {
  JsonRpcHandler,
  JsonRpcReply,
  JsonRpcRequestInput,
} from '../bindings/jsonrpc/jsonrpc-server.js';
import { InvalidRequestError } from '../protocol/errors.js';
import type { AgentInterface } from '../protocol/generated/types.js';
import type { Logger } from '../runtime/logger.js';
import type { CorsPolicy } from './cors.js';
import { BODY_TOO_LARGE, type HttpCoreRequest, type HttpCoreResponse } from './http-exchange.js';
import { formatBytes } from './http-options.js';

/** What the route needs from the server. */
export interface JsonRpcRouteContext {
  readonly maxBodyBytes: number;
  readonly cors: CorsPolicy;
  readonly logger: Logger;
  /** The interfaces of this agent under the request's base URL (for the extended card). */
  readonly agentInterfaces: (request: HttpCoreRequest) => AgentInterface[];
}

/** The HTTP response and, when the binding was reached, its reply (for the request log). */
export interface JsonRpcRouteResult {
  readonly response: HttpCoreResponse;
  readonly reply: JsonRpcReply | undefined;
}

const ACCEPTED_MEDIA_TYPES = new Set(['application/json', 'application/a2a+json']);

function mediaTypeOf(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** A transport-level refusal, with a JSON-RPC error body (id `null`: the body was not read). */
export function jsonRpcRefusal(
  status: number,
  message: string,
  cors: CorsPolicy,
  request: HttpCoreRequest,
  extraHeaders?: Record<string, string>,
): HttpCoreResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extraHeaders };
  cors.apply(headers, request);
  const body = errorEnvelope(NULL_ID_TOKEN, new InvalidRequestError(message));
  return { status, headers, body, closeConnection: status === 413 };
}

/** Serves one `POST` to an agent's JSON-RPC endpoint. */
export async function serveJsonRpc(
  rpc: JsonRpcHandler,
  request: HttpCoreRequest,
  context: JsonRpcRouteContext,
): Promise<JsonRpcRouteResult> {
  const { cors, maxBodyBytes } = context;
  const contentType = request.get('content-type');
  if (contentType && !ACCEPTED_MEDIA_TYPES.has(mediaTypeOf(contentType))) {
    const message =
      `Content-Type ${JSON.stringify(contentType)} is not supported; send the JSON-RPC request ` +
      'as application/json';
    return { response: jsonRpcRefusal(415, message, cors, request), reply: undefined };
  }
  const tooLarge = `Request body exceeds the ${formatBytes(maxBodyBytes)} limit`;
  const declared = request.get('content-length');
  if (declared && Number(declared) > maxBodyBytes) {
    return { response: jsonRpcRefusal(413, tooLarge, cors, request), reply: undefined };
  }
  let body: string | Uint8Array | typeof BODY_TOO_LARGE;
  try {
    body = await request.readBody(maxBodyBytes);
  } catch (error) {
    // The client aborted the upload; nobody is left to read the answer, but answer anyway.
    context.logger.debug({ err: error }, 'reading a request body failed');
    const response = jsonRpcRefusal(400, 'The request body could not be read', cors, request);
    return { response: { ...response, closeConnection: true }, reply: undefined };
  }
  if (body === BODY_TOO_LARGE) {
    return { response: jsonRpcRefusal(413, tooLarge, cors, request), reply: undefined };
  }
  const reply = await rpc(new RouteInput(body, request, context));
  return { response: toHttpResponse(reply, request, cors), reply };
}

/**
 * The binding's view of one request. A class, not an object literal with a getter: a literal
 * with its own accessor gets a new hidden class on every evaluation (costly in garbage collection
 * on a path taken by every request).
 */
class RouteInput implements JsonRpcRequestInput {
  readonly query: string;

  constructor(
    readonly body: string | Uint8Array,
    readonly headers: HttpCoreRequest,
    readonly context: JsonRpcRouteContext,
  ) {
    this.query = headers.query;
  }

  get signal(): AbortSignal {
    return this.headers.signal;
  }

  readonly agentInterfaces = (): AgentInterface[] => this.context.agentInterfaces(this.headers);
}

function toHttpResponse(
  reply: JsonRpcReply,
  request: HttpCoreRequest,
  cors: CorsPolicy,
): HttpCoreResponse {
  let headers: Record<string, string>;
  let response: HttpCoreResponse;
  switch (reply.kind) {
    case 'body':
      headers = { 'content-type': 'application/json' };
      response = { status: 200, headers, body: reply.body };
      break;
    case 'empty':
      headers = {};
      response = { status: 204, headers };
      break;
    case 'stream':
      headers = {
        'content-type': 'text/event-stream',
        // no-transform keeps compression middleware and proxies from buffering the stream.
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      };
      response = { status: 200, headers, sse: reply.stream };
      break;
  }
  if (reply.activatedExtensions.length > 0) {
    headers[EXTENSIONS_HEADER.toLowerCase()] = reply.activatedExtensions.join(', ');
  }
  cors.apply(headers, request);
  return response;
}
