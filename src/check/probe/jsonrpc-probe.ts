/**
 * The JSON-RPC probe (spec 9; 0.3 sections 3.2.1 and 7): each operation POSTed as a JSON-RPC 2.0
 * request — the 1.0 method and params, or the 0.3 method (`message/send`...) with its
 * kind-tagged params — and the answer read as a JSON-RPC response object. What the binding
 * requires of the envelope itself (`jsonrpc: "2.0"`, the id echoed, exactly one of `result` and
 * `error`, `application/json`) is noted on every answer, for the binding checks; `postRaw` sends
 * bodies no client would, for the error rules of JSON-RPC.
 */

import type { SseEvent } from '../../protocol/sse-decoder.js';
import { UsageError } from '../../protocol/local-errors.js';
import type {
  StreamingOperationName,
  UnaryOperationName,
} from '../../bindings/client/client-transport.js';
import { methodOf, requestToV03 } from '../../bindings/v0_3/translate/v03-requests.js';
import type { OperationName } from '../../protocol/operations.js';
import type { Exchange } from '../wire/wire-exchange.js';
import { inlineExcerpt } from '../wire/wire-exchange.js';
import type { HttpAnswer } from '../wire/http-wire.js';
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
import { jsonRpcError } from './wire-error.js';

/** Something the JSON-RPC binding requires of an answer that this one lacks. */
export interface EnvelopeNote {
  readonly problem: string;
  readonly exchange: Exchange;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Speaks the JSON-RPC binding of one interface. */
export class JsonRpcProbe implements Probe {
  readonly target: ProbeTarget;
  /** Envelope problems of every answer read so far. */
  readonly envelopeNotes: EnvelopeNote[] = [];
  /** The media type of every answer that was not a stream. */
  readonly mediaTypes: { readonly mediaType: string; readonly exchange: Exchange }[] = [];
  readonly #environment: ProbeEnvironment;
  readonly #onOutcome: (operation: string, outcome: CallOutcome | StreamOutcome) => void;
  #nextId = 1;

  constructor(
    environment: ProbeEnvironment,
    target: ProbeTarget,
    onOutcome: (operation: string, outcome: CallOutcome | StreamOutcome) => void,
  ) {
    this.#environment = environment;
    this.target = target;
    this.#onOutcome = onOutcome;
  }

  #method(operation: OperationName): string {
    if (this.target.version === '1.0') return operation;
    const method = methodOf(operation);
    if (method === undefined) {
      throw new UsageError(
        `${operation} has no A2A 0.3 JSON-RPC method; the check must not send it`,
      );
    }
    return method;
  }

  #params(operation: OperationName, request: object): unknown {
    if (this.target.version === '0.3') return requestToV03(operation, request as never);
    const tenant = this.target.tenant;
    return tenant === undefined || tenant === '' || 'tenant' in request
      ? request
      : { ...request, tenant };
  }

  #call(body: string, settings: CallSettings, accept: string): HttpCall {
    const own: [string, string][] = [
      ['Content-Type', 'application/json'],
      ['Accept', accept],
    ];
    return {
      method: 'POST',
      url: callUrl(this.#environment, this.target.url, settings),
      headers: callHeaders(this.#environment, this.target, settings, own),
      body,
    };
  }

  /** POSTs a body as it is, with the usual headers unless `headers` replaces them. */
  async postRaw(
    body: string,
    options: { readonly contentType?: string; readonly settings?: CallSettings } = {},
  ): Promise<{ answer?: HttpAnswer; exchange: Exchange; failure?: string }> {
    const settings = options.settings ?? {};
    const call = this.#call(body, settings, 'application/json');
    const headers = call.headers.map(([name, value]): [string, string] =>
      name === 'Content-Type' && options.contentType !== undefined
        ? [name, options.contentType]
        : [name, value],
    );
    const sent = await sendHttp(this.#environment, { ...call, headers });
    return 'failure' in sent ? { exchange: sent.exchange, failure: sent.failure } : sent;
  }

  async call(
    operation: UnaryOperationName,
    request: object,
    settings: CallSettings = {},
  ): Promise<CallOutcome> {
    const id = `tandem-check-${this.#nextId++}`;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: this.#method(operation),
      params: this.#params(operation, request),
    });
    const sent = await sendHttp(this.#environment, this.#call(body, settings, 'application/json'));
    const outcome: CallOutcome =
      'failure' in sent
        ? { kind: 'unreachable', problem: sent.failure, exchange: sent.exchange }
        : this.#readUnary(operation, id, sent.answer, sent.exchange);
    this.#onOutcome(operation, outcome);
    return outcome;
  }

  /** Reads a whole answer as the JSON-RPC response to request `id`. */
  readAnswer(
    id: unknown,
    answer: HttpAnswer,
    exchange: Exchange,
  ): { envelope?: Json; problem?: string } {
    this.mediaTypes.push({ mediaType: answer.mediaType, exchange });
    let value: unknown;
    try {
      value = JSON.parse(answer.text) as unknown;
    } catch {
      return {
        problem: `HTTP ${answer.status} with a body that is not JSON (${answer.mediaType || 'no content type'}): ${inlineExcerpt(answer.text)}`,
      };
    }
    if (!isRecord(value))
      return {
        problem: `the answer is JSON but no JSON-RPC response object: ${inlineExcerpt(answer.text)}`,
      };
    this.#noteEnvelope(value, id, exchange);
    return { envelope: value };
  }

  #noteEnvelope(envelope: Json, id: unknown, exchange: Exchange): void {
    const note = (problem: string): void => {
      this.envelopeNotes.push({ problem, exchange });
    };
    if (envelope.jsonrpc !== '2.0')
      note(`"jsonrpc" is ${JSON.stringify(envelope.jsonrpc)}, not "2.0"`);
    if (envelope.id !== id) {
      note(`"id" is ${JSON.stringify(envelope.id)}, not the request's ${JSON.stringify(id)}`);
    }
    const hasResult = 'result' in envelope;
    const hasError = 'error' in envelope;
    if (hasResult === hasError) {
      note(
        hasResult
          ? 'the response has both "result" and "error"'
          : 'the response has neither "result" nor "error"',
      );
    }
  }

  #readUnary(
    operation: UnaryOperationName,
    id: string,
    answer: HttpAnswer,
    exchange: Exchange,
  ): CallOutcome {
    const read = this.readAnswer(id, answer, exchange);
    if (read.envelope === undefined) {
      if (answer.status === 401 || answer.status === 403 || answer.status === 429) {
        return {
          kind: 'error',
          error: jsonRpcError(this.target.version, { message: answer.text }, answer.status),
          exchange,
        };
      }
      return { kind: 'invalid', problem: read.problem ?? 'no JSON-RPC response', exchange };
    }
    const envelope = read.envelope;
    if (isRecord(envelope.error)) {
      return {
        kind: 'error',
        error: jsonRpcError(this.target.version, envelope.error, answer.status),
        exchange,
      };
    }
    if (!('result' in envelope)) {
      return { kind: 'invalid', problem: 'the JSON-RPC response has no "result"', exchange };
    }
    const where = `POST ${this.target.url} (${operation})`;
    const result = readResult(this.target.version, 'json', operation, envelope.result, where);
    return result.ok
      ? { kind: 'result', value: result.value, raw: envelope.result, exchange }
      : { kind: 'invalid', problem: result.problem, exchange };
  }

  async stream(
    operation: StreamingOperationName,
    request: object,
    settings: CallSettings = {},
  ): Promise<StreamOutcome> {
    const id = `tandem-check-${this.#nextId++}`;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: this.#method(operation),
      params: this.#params(operation, request),
    });
    const abort = new AbortController();
    const signal = AbortSignal.any([this.#environment.signal, abort.signal]);
    const timer = setTimeout(
      () => abort.abort(new DOMException('no answer in time', 'TimeoutError')),
      this.#environment.timeoutMs,
    );
    const opened = await openHttp(
      this.#environment,
      this.#call(body, settings, 'text/event-stream'),
      signal,
    );
    clearTimeout(timer);
    const outcome = await this.#readStream(operation, id, opened, abort);
    this.#onOutcome(operation, outcome);
    return outcome;
  }

  async #readStream(
    operation: StreamingOperationName,
    id: string,
    opened: Awaited<ReturnType<typeof openHttp>>,
    abort: AbortController,
  ): Promise<StreamOutcome> {
    if ('failure' in opened)
      return { kind: 'unreachable', problem: opened.failure, exchange: opened.exchange };
    const { answer } = opened;
    if (answer.status !== 200 || answer.mediaType !== 'text/event-stream') {
      const text = await readRest(answer);
      const exchange: Exchange = {
        request: opened.exchange.request,
        response: httpResponseOf(this.#environment, answer, text),
      };
      const whole: HttpAnswer = { ...answer, text };
      const read = this.#readUnary('GetTask', id, whole, exchange);
      // A JSON-RPC error instead of a stream is the operation's answer; a result is not.
      if (read.kind === 'error' || read.kind === 'unreachable') return read;
      if (read.kind === 'invalid' && answer.mediaType !== 'application/json') {
        return read;
      }
      return {
        kind: 'invalid',
        problem: `${operation} answered HTTP ${answer.status} ${answer.mediaType || 'without content type'} instead of an event stream`,
        exchange,
      };
    }
    const where = `POST ${this.target.url} (${operation})`;
    const decode = (event: SseEvent): StreamEventRead | StreamEnd =>
      this.#decodeEvent(event, id, where);
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

  #decodeEvent(event: SseEvent, id: string, where: string): StreamEventRead | StreamEnd {
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
    if (!isRecord(value)) {
      return { ...base, raw: value, problem: 'an event is not a JSON-RPC response object' };
    }
    const problems: string[] = [];
    if (value.jsonrpc !== '2.0') problems.push(`"jsonrpc" is ${JSON.stringify(value.jsonrpc)}`);
    if (value.id !== id)
      problems.push(`"id" is ${JSON.stringify(value.id)}, not the request's "${id}"`);
    if (isRecord(value.error)) {
      return { end: 'error', error: jsonRpcError(this.target.version, value.error, 200) };
    }
    if (!('result' in value)) problems.push('the event has no "result"');
    const read = readEvent(this.target.version, 'json', value.result, where);
    if (!read.ok) problems.push(read.problem);
    const problem =
      problems.length === 0 ? {} : { problem: `an event's envelope: ${problems.join('; ')}` };
    return read.ok
      ? { ...base, raw: value.result, payload: read.value.payload, ...problem }
      : { ...base, raw: value.result, ...problem };
  }

  async invalidGetTask(): Promise<{ outcome: CallOutcome; field: string }> {
    const id = `tandem-check-${this.#nextId++}`;
    const method = this.target.version === '1.0' ? 'GetTask' : 'tasks/get';
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: {} });
    const sent = await sendHttp(this.#environment, this.#call(body, {}, 'application/json'));
    const outcome: CallOutcome =
      'failure' in sent
        ? { kind: 'unreachable', problem: sent.failure, exchange: sent.exchange }
        : this.#readUnary('GetTask', id, sent.answer, sent.exchange);
    this.#onOutcome('GetTask', outcome);
    return { outcome, field: 'id' };
  }
}
