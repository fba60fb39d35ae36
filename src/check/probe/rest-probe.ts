/**
 * The HTTP+JSON probe (spec 11; 0.3 section 3.2.3): each operation sent to its route — the 1.0
 * routes read from the proto's `google.api.http` mapping (`restRoute`, as the client builds
 * them), the 0.3 `/v1/...` routes — and the answer read by its status: a result is the
 * operation's response message (0.3: the 0.3 proto's ProtoJSON), an error must be a JSON
 * `google.rpc.Status`. The media type of every JSON answer is kept for the binding checks.
 */

import type { SseEvent } from '../../protocol/sse-decoder.js';
import type { OperationName } from '../../protocol/operations.js';
import type {
  StreamingOperationName,
  UnaryOperationName,
} from '../../bindings/client/client-transport.js';
import { restRoute } from '../../bindings/rest/rest-client-paths.js';
import type { HttpAnswer } from '../wire/http-wire.js';
import { inlineExcerpt, type Exchange } from '../wire/wire-exchange.js';
import {
  callHeaders,
  callUrl,
  httpResponseOf,
  openHttp,
  readRest,
  sendHttp,
  SseEventStream,
  type HttpCall,
} from './http-probe.js';
import type {
  CallOutcome,
  CallSettings,
  Probe,
  ProbeTarget,
  StreamEnd,
  StreamEventRead,
  StreamOutcome,
} from './probe.js';
import type { ProbeEnvironment } from './probe-environment.js';
import { readEvent, readResult } from './result-reading.js';
import { v03Route } from './v03-requests.js';
import { restError } from './wire-error.js';

/** The media type 1.0 asks for (spec 11.1); 0.3 uses `application/json`. */
const A2A_JSON = 'application/a2a+json';

/** A route, as this probe sends it. */
interface Route {
  readonly method: string;
  readonly url: string;
  readonly body?: string | undefined;
}

function join(base: string, path: string, query?: URLSearchParams): string {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  for (const [name, value] of query ?? []) url.searchParams.append(name, value);
  return url.toString();
}

/** Speaks the HTTP+JSON binding of one interface. */
export class RestProbe implements Probe {
  readonly target: ProbeTarget;
  /** The media type of every JSON answer that was not a stream, with its exchange. */
  readonly mediaTypes: { readonly mediaType: string; readonly exchange: Exchange }[] = [];
  readonly #environment: ProbeEnvironment;
  readonly #onOutcome: (operation: string, outcome: CallOutcome | StreamOutcome) => void;

  constructor(
    environment: ProbeEnvironment,
    target: ProbeTarget,
    onOutcome: (operation: string, outcome: CallOutcome | StreamOutcome) => void,
  ) {
    this.#environment = environment;
    this.target = target;
    this.#onOutcome = onOutcome;
  }

  get #mediaType(): string {
    return this.target.version === '1.0' ? A2A_JSON : 'application/json';
  }

  /** The route of an operation on this interface. */
  routeOf(operation: OperationName, request: object, verb?: 'GET' | 'POST'): Route {
    if (this.target.version === '0.3') {
      const route = v03Route(operation, request, verb);
      return {
        method: route.method,
        url: join(this.target.url, route.path, route.query),
        body: route.body,
      };
    }
    const tenant = this.target.tenant;
    const withTenant =
      tenant === undefined || tenant === '' || 'tenant' in request
        ? request
        : { ...request, tenant };
    const route = restRoute(operation, withTenant, this.target.url, verb);
    return { method: route.method, url: route.url, body: route.body };
  }

  #call(route: Route, settings: CallSettings, accept: string): HttpCall {
    const own: [string, string][] = [['Accept', accept]];
    if (route.body !== undefined) own.unshift(['Content-Type', this.#mediaType]);
    return {
      method: route.method,
      url: callUrl(this.#environment, route.url, settings),
      headers: callHeaders(this.#environment, this.target, settings, own),
      body: route.body,
    };
  }

  /** Sends a request to a path below the interface URL as it is. */
  async sendRaw(
    method: string,
    path: string,
    body?: string,
    settings: CallSettings = {},
  ): Promise<{ answer?: HttpAnswer; exchange: Exchange; failure?: string }> {
    const call = this.#call(
      { method, url: join(this.target.url, path), body },
      settings,
      `${this.#mediaType}, application/json`,
    );
    const sent = await sendHttp(this.#environment, call);
    return 'failure' in sent ? { exchange: sent.exchange, failure: sent.failure } : sent;
  }

  async call(
    operation: UnaryOperationName,
    request: object,
    settings: CallSettings = {},
  ): Promise<CallOutcome> {
    const route = this.routeOf(operation, request);
    const sent = await sendHttp(
      this.#environment,
      this.#call(route, settings, `${this.#mediaType}, application/json`),
    );
    const outcome: CallOutcome =
      'failure' in sent
        ? { kind: 'unreachable', problem: sent.failure, exchange: sent.exchange }
        : this.readUnary(operation, sent.answer, sent.exchange);
    this.#onOutcome(operation, outcome);
    return outcome;
  }

  /** Reads a whole answer as the answer of `operation`. */
  readUnary(operation: UnaryOperationName, answer: HttpAnswer, exchange: Exchange): CallOutcome {
    const isJson = answer.mediaType === 'application/json' || answer.mediaType.endsWith('+json');
    if (isJson) this.mediaTypes.push({ mediaType: answer.mediaType, exchange });
    if (answer.status < 200 || answer.status >= 300) {
      return {
        kind: 'error',
        error: restError(this.target.version, answer.status, answer.mediaType, answer.text),
        exchange,
      };
    }
    const where = `${exchange.request.method} ${exchange.request.url.split('?')[0] ?? ''}`;
    let body: unknown;
    if (answer.text.trim() === '' && operation === 'DeleteTaskPushNotificationConfig') {
      body = undefined;
    } else {
      try {
        body = JSON.parse(answer.text) as unknown;
      } catch {
        return {
          kind: 'invalid',
          problem: `HTTP ${answer.status} with a body that is not JSON (${answer.mediaType || 'no content type'}): ${inlineExcerpt(answer.text)}`,
          exchange,
        };
      }
    }
    const read = readResult(this.target.version, 'protojson', operation, body, where);
    return read.ok
      ? { kind: 'result', value: read.value, raw: body, exchange }
      : { kind: 'invalid', problem: read.problem, exchange };
  }

  async stream(
    operation: StreamingOperationName,
    request: object,
    settings: CallSettings = {},
  ): Promise<StreamOutcome> {
    let verb = settings.verb;
    let outcome = await this.#open(operation, request, settings, verb ?? 'POST');
    // Spec 11.3.2 writes POST, the proto's mapping GET: an agent that routes only the other
    // verb is tried with it.
    if (
      verb === undefined &&
      operation === 'SubscribeToTask' &&
      outcome.kind === 'error' &&
      (outcome.error.httpStatus === 405 ||
        (outcome.error.httpStatus === 404 && outcome.error.type === undefined))
    ) {
      verb = 'GET';
      outcome = await this.#open(operation, request, settings, verb);
    }
    this.#onOutcome(operation, outcome);
    return outcome;
  }

  async #open(
    operation: StreamingOperationName,
    request: object,
    settings: CallSettings,
    verb: 'GET' | 'POST',
  ): Promise<StreamOutcome> {
    const route = this.routeOf(operation, request, verb);
    const abort = new AbortController();
    const signal = AbortSignal.any([this.#environment.signal, abort.signal]);
    const timer = setTimeout(
      () => abort.abort(new DOMException('no answer in time', 'TimeoutError')),
      this.#environment.timeoutMs,
    );
    const opened = await openHttp(
      this.#environment,
      this.#call(route, settings, 'text/event-stream'),
      signal,
    );
    clearTimeout(timer);
    if ('failure' in opened)
      return { kind: 'unreachable', problem: opened.failure, exchange: opened.exchange };
    const { answer } = opened;
    if (answer.status !== 200 || answer.mediaType !== 'text/event-stream') {
      const text = await readRest(answer);
      const exchange: Exchange = {
        request: opened.exchange.request,
        response: httpResponseOf(this.#environment, answer, text),
      };
      if (answer.status < 200 || answer.status >= 300) {
        const read = this.readUnary('GetTask', { ...answer, text }, exchange);
        if (read.kind === 'error') return read;
      }
      return {
        kind: 'invalid',
        problem: `${operation} answered HTTP ${answer.status} ${answer.mediaType || 'without content type'} instead of an event stream: ${inlineExcerpt(text)}`,
        exchange,
      };
    }
    const where = `${route.method} ${route.url.split('?')[0] ?? ''}`;
    const decode = (event: SseEvent): StreamEventRead | StreamEnd =>
      this.#decodeEvent(event, where);
    const events = new SseEventStream(answer, abort, decode);
    return {
      kind: 'stream',
      mediaType: answer.mediaType,
      events,
      exchange: () => ({
        request: opened.exchange.request,
        response: httpResponseOf(this.#environment, answer, events.raw),
      }),
    };
  }

  #decodeEvent(event: SseEvent, where: string): StreamEventRead | StreamEnd {
    const base = event.id === undefined || event.id === '' ? {} : { id: event.id };
    let value: unknown;
    try {
      value = JSON.parse(event.data) as unknown;
    } catch {
      return {
        ...base,
        raw: event.data,
        problem: `an event's data is not JSON: ${inlineExcerpt(event.data)}`,
      };
    }
    const record =
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    if (event.event === 'error' || (typeof record.error === 'object' && record.error !== null)) {
      const status = (record.error as { code?: unknown } | undefined)?.code;
      return {
        end: 'error',
        error: restError(
          this.target.version,
          typeof status === 'number' ? status : 500,
          'application/json',
          event.data,
        ),
      };
    }
    const read = readEvent(this.target.version, 'protojson', value, where);
    return read.ok
      ? { ...base, raw: value, payload: read.value.payload }
      : { ...base, raw: value, problem: read.problem };
  }

  async invalidGetTask(
    taskId = 'tandem-check-unknown',
  ): Promise<{ outcome: CallOutcome; field: string }> {
    const id = encodeURIComponent(taskId);
    const path = this.target.version === '1.0' ? `/tasks/${id}` : `/v1/tasks/${id}`;
    const tenant =
      this.target.version === '1.0' && this.target.tenant
        ? `/${encodeURIComponent(this.target.tenant)}`
        : '';
    const url = join(
      this.target.url,
      `${tenant}${path}`,
      new URLSearchParams({ historyLength: 'many' }),
    );
    const sent = await sendHttp(
      this.#environment,
      this.#call({ method: 'GET', url }, {}, `${this.#mediaType}, application/json`),
    );
    const outcome: CallOutcome =
      'failure' in sent
        ? { kind: 'unreachable', problem: sent.failure, exchange: sent.exchange }
        : this.readUnary('GetTask', sent.answer, sent.exchange);
    this.#onOutcome('GetTask', outcome);
    return { outcome, field: 'historyLength' };
  }
}
