/**
 * The HTTP+JSON/REST binding, server half (spec 11): every operation at the route of its
 * `google.api.http` mapping (`rest-routes.ts`), again under `/{tenant}/`, which sets the request's
 * tenant. It only decodes and frames; the call itself is the shared pipeline (`server-call.ts`).
 *
 * - Requests: a POST body in `application/a2a+json` or `application/json` (an empty body is `{}`,
 *   so `:cancel` and `:subscribe` need none); GET and DELETE fields as query parameters (spec
 *   11.5); path variables fill their fields, and a body or query that names the same field with
 *   another value is refused. Any other request media type: 415 with reason
 *   `CONTENT_TYPE_NOT_SUPPORTED`.
 * - Responses: `application/a2a+json` when the request's `Accept` names it, else
 *   `application/json`. Errors are `google.rpc.Status` bodies (`toHttpErrorBody`) with the HTTP
 *   status of spec 5.4 and the `ErrorInfo` of every A2A error.
 * - Streams: SSE whose `data:` is a bare `StreamResponse`, with `id:` per event (resume with
 *   `Last-Event-ID`); an error that breaks a stream is one last `event: error` whose data is the
 *   `google.rpc.Status` body (spec 11.7 defines no form for it; Tandem's client and the official
 *   JS SDK read it so).
 */

import {
  ContentTypeNotSupportedError,
  InvalidParamsError,
  InvalidRequestError,
  JsonParseError,
  type A2AError,
} from '../../protocol/errors.js';
import { toHttpErrorBody } from '../../protocol/error-serialization.js';
import { messageDescriptors } from '../../protocol/generated/descriptors.js';
import type { HttpRequest, HttpResponse } from '../server/http-exchange.js';
import { stringifyProtocolValue } from '../../protocol/json-text.js';
import { operations, type OperationName } from '../../protocol/operations.js';
import { decodeQueryParameters } from '../../protocol/query-parameters.js';
import { HTTP_JSON_BINDING } from '../../protocol/protocol-bindings.js';
import { encodeSseEvent } from '../../protocol/sse-encoder.js';
import { CURRENT_PROTOCOL_VERSION } from '../../protocol/version.js';
import { negotiateVersion, readVersionParameter } from '../server/service-parameters.js';
import { taskIdOf, type CallReport } from '../server/call-report.js';
import {
  A2A_JSON_MEDIA_TYPE,
  jsonMediaTypeFor,
  mediaTypeOf,
  sseHeaders,
} from '../server/http-media.js';
import { BodyRefusal, readRequestText, type RequestBodyRules } from '../server/request-body.js';
import type {
  BindingContext,
  BindingReply,
  BindingRequest,
  BindingRoute,
  HttpRefusal,
  ServerBinding,
  ServerBindingFactory,
} from '../server/server-binding.js';
import { prepareCall } from '../server/prepare-call.js';
import { refusalOf } from '../server/refusals.js';
import { isStreaming, wireErrorOf, type StreamingOperation } from '../server/server-call.js';
import { echoExtensions } from '../server/service-parameters.js';
import { StreamCallReport } from '../server/stream-report.js';
import { normalizeUrlPath } from '../server/url-path.js';
import { SseEventStream, type SseFraming } from '../server/sse-event-stream.js';
import { REST_ROUTES, pathVariablesOf, type RestRouteTemplate } from './rest-routes.js';
import { deliveryStatusRoutes } from './rest-delivery-status.js';

export { A2A_JSON_MEDIA_TYPE };

const REQUEST_MEDIA_TYPES = new Set([A2A_JSON_MEDIA_TYPE, 'application/json']);

function unsupportedMediaType(contentType: string): ContentTypeNotSupportedError {
  return new ContentTypeNotSupportedError(
    `Content-Type ${JSON.stringify(contentType)} is not supported; send the request as ${A2A_JSON_MEDIA_TYPE} or application/json`,
    { metadata: { contentType: contentType.slice(0, 100) } },
  );
}

/** Options of {@link restBinding}. */
export interface RestBindingOptions {
  /** The interface's path below each agent's path. Default `''`: the agent's path itself. */
  readonly path?: string | undefined;
}

/**
 * The HTTP+JSON/REST binding.
 *
 * @throws ConfigurationError for a path that is not a URL path.
 */
export function restBinding(options: RestBindingOptions = {}): ServerBindingFactory {
  const path = normalizeUrlPath('restBinding path', options.path ?? '');
  return (context) => new RestHttpBinding(path, context);
}

/**
 * The media type of a JSON answer, from `Accept`. A call to a streaming route asked with
 * `Accept: text/event-stream` that fails before its stream starts is answered JSON, and that is
 * A2A's media type (spec 11.1): such a client named no JSON type to prefer.
 */
function responseMediaType(request: HttpRequest): string {
  const accept = request.get('accept');
  if (accept !== null && accept !== undefined && asksOnlyForEvents(accept)) {
    return A2A_JSON_MEDIA_TYPE;
  }
  return jsonMediaTypeFor(accept);
}

/** Whether an `Accept` value names `text/event-stream` and no JSON type (nor any type). */
function asksOnlyForEvents(accept: string): boolean {
  const types = accept.split(',').map((entry) => mediaTypeOf(entry));
  return (
    types.includes('text/event-stream') &&
    !types.some((t) => t === 'application/json' || t === A2A_JSON_MEDIA_TYPE || t.endsWith('/*'))
  );
}

class RestFraming implements SseFraming {
  readonly binding = HTTP_JSON_BINDING;

  eventData(json: string): string {
    return 'data: ' + json;
  }

  errorFrame(error: A2AError): string {
    return encodeSseEvent({ event: 'error', data: JSON.stringify(toHttpErrorBody(error)) });
  }

  errorCodeOf(error: A2AError): number {
    return error.httpStatus;
  }
}

const FRAMING = new RestFraming();

/** The binding of one agent: its routes, each decoding its request into the shared pipeline. */
class RestHttpBinding implements ServerBinding {
  readonly protocolBinding = HTTP_JSON_BINDING;
  readonly protocolVersion = CURRENT_PROTOCOL_VERSION;
  readonly path: string;
  readonly routes: readonly BindingRoute[];
  readonly #context: BindingContext;
  readonly #bodyRules: RequestBodyRules;

  constructor(path: string, context: BindingContext) {
    this.path = path;
    this.#context = context;
    this.#bodyRules = {
      maxBodyBytes: context.maxBodyBytes,
      logger: context.logger,
      mediaTypes: REQUEST_MEDIA_TYPES,
      unsupportedMediaType,
    };
    this.routes = [
      ...REST_ROUTES.map((template) => ({
        method: template.method,
        path: template.path,
        handle: (request: BindingRequest) => this.#serve(template, request),
      })),
      ...deliveryStatusRoutes(context, (refusal, request) => this.refuse(refusal, request)),
    ];
  }

  refuse(refusal: HttpRefusal, request: HttpRequest): HttpResponse {
    const body = JSON.stringify({
      error: { code: refusal.status, status: refusal.code, message: refusal.message, details: [] },
    });
    return {
      status: refusal.status,
      headers: { 'content-type': responseMediaType(request), ...refusal.headers },
      body,
    };
  }

  async #serve(template: RestRouteTemplate, routed: BindingRequest): Promise<BindingReply> {
    const { http, params } = routed;
    const { endpoint, logger } = this.#context;
    const operation = template.operation;
    let request: object | undefined;
    let activatedExtensions: readonly string[] = [];
    try {
      // The version is checked before the request is read: a client of another version learns
      // that first, whatever its body.
      const protocolVersion = negotiateVersion(readVersionParameter(http, http.query)).text;
      const raw = template.body
        ? await this.#readBody(http)
        : decodeQueryParameters(operations[operation].requestType, http.query);
      if (raw instanceof BodyRefusal) return this.#refused(operation, raw, http);
      const { call, request: parsed } = prepareCall(
        endpoint,
        operation,
        withPathVariables(operation, template, params, raw),
        routed,
        { protocolVersion },
      );
      request = parsed;
      activatedExtensions = call.activatedExtensions;
      const headers: Record<string, string> = {};
      echoExtensions(headers, activatedExtensions);
      if (isStreaming(operation)) {
        const events = await endpoint.invoke<StreamingOperation>(operation, call, parsed as never);
        const stream = new SseEventStream(events, FRAMING, logger, operation);
        return {
          response: { status: 200, headers: { ...sseHeaders(), ...headers }, sse: stream },
          report: new StreamCallReport(HTTP_JSON_BINDING, operation, parsed, stream),
        };
      }
      const result = await endpoint.invoke(operation, call, parsed);
      headers['content-type'] = responseMediaType(http);
      return {
        response: { status: 200, headers, body: stringifyProtocolValue(result) },
        report: report(operation, taskIdOf(parsed, result), undefined),
      };
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal !== undefined) {
        return {
          response: this.refuse(refusal, http),
          report: { ...report(operation, taskIdOf(request, undefined), undefined), errorCode: 429 },
        };
      }
      const wire = wireErrorOf(error, logger, { binding: HTTP_JSON_BINDING, operation });
      const headers: Record<string, string> = { 'content-type': responseMediaType(http) };
      echoExtensions(headers, activatedExtensions);
      return {
        response: {
          status: wire.httpStatus,
          headers,
          body: JSON.stringify(toHttpErrorBody(wire)),
        },
        report: report(operation, taskIdOf(request, undefined), wire),
      };
    }
  }

  /** The JSON body of a POST as an object (`{}` when empty), or why it is refused. */
  async #readBody(http: HttpRequest): Promise<object | BodyRefusal> {
    const text = await readRequestText(http, this.#bodyRules);
    if (text instanceof BodyRefusal) return text;
    if (text.trim() === '') return {};
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? `: ${error.message}` : '';
      throw new JsonParseError(`Invalid JSON body${reason}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InvalidRequestError('The request body must be a JSON object');
    }
    return value;
  }

  /** A refusal before the request was decoded (body too large, wrong media type). */
  #refused(operation: OperationName, refused: BodyRefusal, http: HttpRequest): BindingReply {
    const { status, error } = refused;
    const body = toHttpErrorBody(error);
    body.error.code = status;
    return {
      response: {
        status,
        headers: { 'content-type': responseMediaType(http) },
        body: JSON.stringify(body),
        closeConnection: refused.closeConnection,
      },
      report: { ...report(operation, undefined, error), errorCode: status },
    };
  }
}

/**
 * The request with the route's path variables set. A field given both in the path and in the
 * body or query (in either spelling) must agree with the path.
 *
 * @throws InvalidParamsError naming each field given twice with different values.
 */
function withPathVariables(
  operation: OperationName,
  template: RestRouteTemplate,
  params: Readonly<Record<string, string>>,
  raw: object,
): object {
  const variables = pathVariablesOf(template.path);
  if (variables.length === 0) return raw;
  const descriptor =
    messageDescriptors[operations[operation].requestType as keyof typeof messageDescriptors];
  const fields: Record<string, unknown> = { ...raw };
  const violations: { field: string; description: string }[] = [];
  for (const protoName of variables) {
    const value = params[protoName];
    if (value === undefined) continue;
    const field = descriptor.fields.find((f) => f.protoName === protoName);
    const name = field?.name ?? protoName;
    for (const spelling of new Set([name, protoName])) {
      if (!Object.hasOwn(fields, spelling)) continue;
      const given = fields[spelling];
      if (given !== value) {
        violations.push({
          field: spelling,
          description: `is ${JSON.stringify(given)} in the request but ${JSON.stringify(value)} in the URL path; send it in the path only`,
        });
      }
      delete fields[spelling];
    }
    fields[name] = value;
  }
  if (violations.length > 0) throw InvalidParamsError.fromViolations(violations);
  return fields;
}

function report(
  operation: OperationName,
  taskId: string | undefined,
  error: A2AError | undefined,
): CallReport {
  return {
    binding: HTTP_JSON_BINDING,
    operation,
    taskId,
    errorCode: error?.httpStatus,
    errorReason: error?.reason,
  };
}
