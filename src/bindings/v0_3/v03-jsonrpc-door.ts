/**
 * JSON-RPC 0.3 on the endpoint of JSON-RPC 1.0 (`--compat 0.3`). The door wraps the 1.0 binding's
 * routes: a request whose `A2A-Version` says 1.0 (or anything but 0.3) goes straight to the 1.0
 * binding, untouched and unread; a request at 0.3 (the header empty, absent or `0.3`) is read, and
 * served as 0.3 when its method is a 0.3 name (`message/send`...), else handed to the 1.0 binding
 * with its body — which then answers as it always does (`VersionNotSupportedError` for a 1.0
 * method without a version). A second, route-less binding declares the 0.3 interface in the card,
 * at the same URL.
 */

import { InvalidRequestError, type A2AError } from '../../protocol/errors.js';
import {
  BODY_TOO_LARGE,
  type HttpRequest,
  type HttpResponse,
  type PeerCertificate,
} from '../server/http-exchange.js';
import { JSONRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { parseProtocolVersion } from '../../protocol/version.js';
import { idTokenOf, NULL_ID_TOKEN, type JsonRpcId } from '../jsonrpc/jsonrpc-envelope.js';
import { formatBytes, mediaTypeOf, sseHeaders } from '../server/http-media.js';
import { echoExtensions } from '../server/service-parameters.js';
import type {
  BindingContext,
  BindingReply,
  BindingRequest,
  BindingRoute,
  HttpRefusal,
  ServerBinding,
} from '../server/server-binding.js';
import { RoutedRequest } from '../server/routed-request.js';
import { readVersionParameter } from '../server/server-call.js';
import { isObject } from './translate/untranslatable.js';
import { isV03Interface } from './translate/v03-card.js';
import { serveV03Call, v03ErrorBody, v03ReportOf, type V03Outcome } from './v03-jsonrpc-server.js';
import { isV03Method, V03_VERSION } from './translate/v03-types.js';

const JSON_MEDIA_TYPES = new Set(['application/json', 'application/a2a+json']);
const decoder = new TextDecoder();

/** A request whose body was already read, handed on to the 1.0 binding. */
class ReadRequest implements HttpRequest {
  readonly #request: HttpRequest;
  readonly #body: string | Uint8Array;

  constructor(request: HttpRequest, body: string | Uint8Array) {
    this.#request = request;
    this.#body = body;
  }

  get(name: string): string | null | undefined {
    return this.#request.get(name);
  }
  get method(): string {
    return this.#request.method;
  }
  get path(): string {
    return this.#request.path;
  }
  get query(): string {
    return this.#request.query;
  }
  get scheme(): 'http' | 'https' {
    return this.#request.scheme;
  }
  get mountPath(): string {
    return this.#request.mountPath;
  }
  get localPort(): number | undefined {
    return this.#request.localPort;
  }
  get peer(): { address: string | undefined; certificate: PeerCertificate | undefined } {
    return this.#request.peer;
  }
  get signal(): AbortSignal {
    return this.#request.signal;
  }
  readBody(): Promise<string | Uint8Array> {
    return Promise.resolve(this.#body);
  }
}

/** Whether the request is at 0.3 by its `A2A-Version` (empty or absent means 0.3). */
function isAtV03(request: HttpRequest): boolean {
  const version = parseProtocolVersion(readVersionParameter(request, request.query));
  return version?.text === V03_VERSION;
}

const errorCodeOf = (error: A2AError): number => error.code;

function responseOf(outcome: V03Outcome): HttpResponse {
  const response = bareResponseOf(outcome);
  echoExtensions(response.headers, outcome.activatedExtensions ?? [], V03_VERSION);
  return response;
}

function bareResponseOf(outcome: V03Outcome): HttpResponse {
  const reply = outcome.reply;
  switch (reply.kind) {
    case 'body':
      return {
        status: reply.refusal?.status ?? 200,
        headers: { 'content-type': 'application/json', ...reply.refusal?.headers },
        body: reply.body,
      };
    case 'empty':
      return { status: 204, headers: {} };
    case 'stream':
      return { status: 200, headers: sseHeaders(), sse: reply.stream };
  }
}

/** The 1.0 JSON-RPC binding with the 0.3 door on each of its POST routes. */
class V03JsonRpcDoor implements ServerBinding {
  readonly protocolBinding: string;
  readonly protocolVersion: string;
  readonly path: string;
  readonly routes: readonly BindingRoute[];
  readonly #inner: ServerBinding;
  readonly #context: BindingContext;

  constructor(inner: ServerBinding, context: BindingContext) {
    this.#inner = inner;
    this.#context = context;
    this.protocolBinding = inner.protocolBinding;
    this.protocolVersion = inner.protocolVersion;
    this.path = inner.path;
    this.routes = inner.routes.map((route) =>
      route.method === 'POST'
        ? { method: route.method, path: route.path, handle: (r) => this.#serve(route, r) }
        : route,
    );
  }

  refuse(refusal: HttpRefusal, request: HttpRequest): HttpResponse {
    return this.#inner.refuse(refusal, request);
  }

  refuseCall(refusal: HttpRefusal, request: HttpRequest): Promise<HttpResponse> {
    return (
      this.#inner.refuseCall?.(refusal, request) ?? Promise.resolve(this.refuse(refusal, request))
    );
  }

  async #serve(route: BindingRoute, routed: BindingRequest): Promise<BindingReply> {
    const request = routed.http;
    const contentType = request.get('content-type');
    if (!isAtV03(request) || (contentType && !JSON_MEDIA_TYPES.has(mediaTypeOf(contentType)))) {
      return route.handle(routed);
    }
    const { maxBodyBytes, logger } = this.#context;
    const tooLarge = `Request body exceeds the ${formatBytes(maxBodyBytes)} limit`;
    const declared = request.get('content-length');
    if (declared && Number(declared) > maxBodyBytes) return route.handle(routed);
    let body: string | Uint8Array | typeof BODY_TOO_LARGE;
    try {
      body = await request.readBody(maxBodyBytes);
    } catch (error) {
      logger.debug({ err: error }, 'reading a request body failed');
      return this.#refused(400, 'The request body could not be read', request, true);
    }
    if (body === BODY_TOO_LARGE) return this.#refused(413, tooLarge, request, true);
    const text = typeof body === 'string' ? body : decoder.decode(body);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    if (
      !isObject(message) ||
      message.jsonrpc !== '2.0' ||
      typeof message.method !== 'string' ||
      // 0.3 names are `category/action`; 1.0 names have no slash.
      !(isV03Method(message.method) || message.method.includes('/'))
    ) {
      return route.handle(
        new RoutedRequest(
          routed.binding,
          new ReadRequest(request, body),
          routed.params,
          routed.principal,
          this.#context.agentInterfaces,
        ),
      );
    }
    const hasId = Object.hasOwn(message, 'id');
    const id = message.id;
    if (hasId && id !== null && typeof id !== 'string' && typeof id !== 'number') {
      const error = new InvalidRequestError('The request "id" must be a string, a number or null');
      return this.#answer(NULL_ID_TOKEN, error);
    }
    const idToken = hasId ? idTokenOf(text, id as JsonRpcId) : NULL_ID_TOKEN;
    const tenant = this.#context.agentInterfaces(request).find(isV03Interface)?.tenant ?? '';
    const outcome = await serveV03Call(
      this.#context.endpoint,
      {
        method: message.method,
        params: message.params ?? {},
        idToken,
        notification: !hasId,
        source: routed,
        tenant,
      },
      logger,
    );
    return {
      response: responseOf(outcome),
      report: v03ReportOf(JSONRPC_BINDING, outcome, errorCodeOf),
    };
  }

  #answer(idToken: string, error: InvalidRequestError): BindingReply {
    const outcome: V03Outcome = {
      reply: { kind: 'body', body: v03ErrorBody(idToken, error) },
      operation: undefined,
      taskId: undefined,
      error,
    };
    return {
      response: responseOf(outcome),
      report: v03ReportOf(JSONRPC_BINDING, outcome, errorCodeOf),
    };
  }

  #refused(status: number, message: string, request: HttpRequest, close: boolean): BindingReply {
    const error = new InvalidRequestError(message);
    const response = this.#inner.refuse(
      { status, code: status === 413 ? 'RESOURCE_EXHAUSTED' : 'INVALID_ARGUMENT', message },
      request,
    );
    const outcome: V03Outcome = {
      reply: { kind: 'empty' },
      operation: undefined,
      taskId: undefined,
      error,
    };
    return {
      response: { ...response, closeConnection: close },
      report: v03ReportOf(JSONRPC_BINDING, outcome, errorCodeOf),
    };
  }
}

/** Declares the 0.3 JSON-RPC interface (served by the door at the same URL). */
class V03Declaration implements ServerBinding {
  readonly protocolBinding = JSONRPC_BINDING;
  readonly protocolVersion = V03_VERSION;
  readonly routes: readonly BindingRoute[] = [];
  constructor(
    readonly path: string,
    readonly refuse: ServerBinding['refuse'],
  ) {}
}

/**
 * The bindings of an agent with the 0.3 door: each 1.0 JSON-RPC binding is wrapped, and followed
 * by the declaration of its 0.3 interface. Other bindings are kept as they are.
 */
export function withV03JsonRpc(
  bindings: readonly ServerBinding[],
  context: BindingContext,
): ServerBinding[] {
  return bindings.flatMap((binding) => {
    if (binding.protocolBinding !== JSONRPC_BINDING) return [binding];
    const door = new V03JsonRpcDoor(binding, context);
    return [
      door,
      new V03Declaration(binding.path, (refusal, request) => door.refuse(refusal, request)),
    ];
  });
}
