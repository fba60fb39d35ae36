/**
 * The gRPC probe (spec 10; 0.3 section 3.2.2): each operation the method of the same name of
 * `lf.a2a.v1.A2AService` (0.3: of `a2a.v1.A2AService`), its request encoded by the protocol's
 * codecs, service parameters and credentials as metadata (spec 10.2). An error is read from its
 * status and `grpc-status-details-bin` (`decodeStatus`); whether that trailer exists, decodes and
 * agrees with the status is noted for `grpc.error-details`.
 */

import { GRPC_METHODS } from '../../bindings/grpc/grpc-codec.js';
import { decodeStatus, type DecodedStatus } from '../../bindings/grpc/grpc-status.js';
import { FIRST_EVENT_ID_HEADER, firstEventIdOf } from '../../bindings/grpc/grpc-event-ids.js';
import {
  decodeV03,
  encodeV03,
  v03MethodOf,
  v03PathOf,
} from '../../bindings/v0_3/v03-grpc-codec.js';
import type {
  StreamingOperationName,
  UnaryOperationName,
} from '../../bindings/client/client-transport.js';
import { UsageError } from '../../protocol/local-errors.js';
import type { OperationName } from '../../protocol/operations.js';
import { CheckConnectionError } from '../check-errors.js';
import type { GrpcStatus } from '../wire/grpc-wire.js';
import { wireRequest, wireResponse, type Exchange } from '../wire/wire-exchange.js';
import type { WireResponse } from '../check-types.js';
import type {
  CallOutcome,
  CallSettings,
  EventStream,
  Probe,
  ProbeTarget,
  StreamEnd,
  StreamEventRead,
  StreamOutcome,
} from './probe.js';
import { grpcCallMetadata } from './grpc-metadata.js';
import { isRunAbort, requestSignal, type ProbeEnvironment } from './probe-environment.js';
import { readEvent, readResult } from './result-reading.js';
import { v03ProtoRequest } from './v03-requests.js';
import { grpcCodeText, grpcError, type WireError } from './wire-error.js';
import { pause, RATE_LIMIT_RETRIES, retryAfterMs } from './rate-limit.js';

/** A method: its path and codecs between ProtoJSON and binary. */
interface ProbeMethod {
  readonly path: string;
  encode(value: unknown): Uint8Array;
  decode(bytes: Uint8Array): unknown;
}

/** What a gRPC error's `grpc-status-details-bin` was like. */
export interface StatusDetailsNote {
  readonly error: WireError;
  /** Why the trailer is wrong; absent when it is right. */
  readonly problem?: string;
  readonly exchange: Exchange;
}

type Json = Record<string, unknown>;

/** The gRPC status of a refusal for the caller's rate. */
const RESOURCE_EXHAUSTED = 8;

function trailer(status: GrpcStatus, name: string): string | undefined {
  return status.trailers.find(([key]) => key === name)?.[1];
}

/** Speaks the gRPC binding of one interface. */
export class GrpcProbe implements Probe {
  readonly target: ProbeTarget;
  /** The status details of every error seen. */
  readonly statusNotes: StatusDetailsNote[] = [];
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

  #method(operation: OperationName): ProbeMethod {
    if (this.target.version === '1.0') {
      const method = GRPC_METHODS.get(operation);
      if (method === undefined) throw new UsageError(`no gRPC method for ${operation}`);
      return {
        path: method.path,
        encode: (value) => method.request.encode(value),
        decode: (bytes) => method.response.decode(bytes),
      };
    }
    const method = v03MethodOf(operation);
    if (method === undefined) {
      throw new UsageError(`${operation} has no A2A 0.3 gRPC method; the check must not send it`);
    }
    return {
      path: v03PathOf(method),
      encode: (value) => encodeV03(method.input, value),
      decode: (bytes) => decodeV03(method.output, bytes),
    };
  }

  /** The request message in ProtoJSON: the 1.0 request with the tenant, or the 0.3 message. */
  #message(operation: OperationName, request: object): Json {
    if (this.target.version === '0.3') return v03ProtoRequest(operation, request);
    const tenant = this.target.tenant;
    return (
      tenant === undefined || tenant === '' || 'tenant' in request
        ? request
        : { ...request, tenant }
    ) as Json;
  }

  #request(path: string, message: Json, metadata: [string, string][]): Exchange['request'] {
    return wireRequest(this.#environment.secrets, {
      method: 'gRPC',
      url: `${this.target.url}${path}`,
      headers: metadata,
      body: JSON.stringify(message),
    });
  }

  #response(
    status: GrpcStatus,
    headers: readonly (readonly [string, string])[],
    body: unknown,
  ): WireResponse {
    const shown = body === undefined ? status.message : JSON.stringify(body);
    return wireResponse(this.#environment.secrets, {
      status: grpcCodeText(status.code),
      headers: [
        ...headers,
        ...status.trailers.filter(([name]) => name !== 'grpc-status-details-bin'),
        ...(status.details === undefined
          ? []
          : [['grpc-status-details-bin', '(binary google.rpc.Status)'] as const]),
      ],
      body: shown,
    });
  }

  /** The error of a failed status, its details decoded. */
  #error(status: GrpcStatus, exchange: Exchange): WireError {
    let decoded: DecodedStatus | undefined;
    let problem: string | undefined;
    if (status.details === undefined) {
      problem = 'the status has no grpc-status-details-bin trailer';
    } else {
      try {
        decoded = decodeStatus(status.details);
        if (decoded.code !== status.code) {
          problem = `grpc-status-details-bin says code ${decoded.code}, the status ${status.code}`;
        } else if (decoded.message !== status.message) {
          problem = 'grpc-status-details-bin has another message than the status';
        }
      } catch {
        problem = 'grpc-status-details-bin is not a google.rpc.Status';
      }
    }
    const error = grpcError(
      this.target.version,
      status.code,
      status.message,
      decoded?.details ?? [],
      [],
    );
    this.statusNotes.push({ error, ...(problem === undefined ? {} : { problem }), exchange });
    return error;
  }

  #unreachable(error: unknown, exchange: Exchange): CallOutcome {
    if (isRunAbort(this.#environment)) throw this.#environment.signal.reason as Error;
    if (error instanceof CheckConnectionError)
      return { kind: 'unreachable', problem: error.message, exchange };
    if (error instanceof Error && error.name === 'GrpcEncodingError') throw error;
    return {
      kind: 'unreachable',
      problem: error instanceof Error ? error.message : String(error),
      exchange,
    };
  }

  async call(
    operation: UnaryOperationName,
    request: object,
    settings: CallSettings = {},
  ): Promise<CallOutcome> {
    const outcome = await this.#unary(operation, this.#message(operation, request), settings);
    this.#onOutcome(operation, outcome);
    return outcome;
  }

  async #unary(
    operation: UnaryOperationName,
    message: Json,
    settings: CallSettings,
  ): Promise<CallOutcome> {
    const method = this.#method(operation);
    const metadata = grpcCallMetadata(this.target, this.#environment, settings);
    const request = this.#request(method.path, message, metadata);
    let answer;
    try {
      for (let attempt = 0; ; attempt++) {
        answer = await this.#environment.grpc.unary({
          target: this.target.url,
          path: method.path,
          request: method.encode(message),
          metadata,
          signal: requestSignal(this.#environment),
          timeoutMs: this.#environment.timeoutMs,
        });
        if (answer.status.code !== RESOURCE_EXHAUSTED || attempt >= RATE_LIMIT_RETRIES) break;
        await pause(retryAfterMs(trailer(answer.status, 'retry-after')), this.#environment.signal);
      }
    } catch (error) {
      return this.#unreachable(error, { request });
    }
    if (answer.status.code === 4) {
      return {
        kind: 'unreachable',
        problem: `no answer within ${this.#environment.timeoutMs} ms`,
        exchange: { request },
      };
    }
    if (answer.status.code === 14) {
      return {
        kind: 'unreachable',
        problem: `UNAVAILABLE: ${answer.status.message}`,
        exchange: { request },
      };
    }
    if (answer.status.code !== 0) {
      const exchange = {
        request,
        response: this.#response(answer.status, answer.headers, undefined),
      };
      return { kind: 'error', error: this.#error(answer.status, exchange), exchange };
    }
    let value: unknown;
    try {
      value = method.decode(answer.response ?? new Uint8Array());
    } catch (error) {
      const exchange = {
        request,
        response: this.#response(answer.status, answer.headers, undefined),
      };
      return {
        kind: 'invalid',
        problem: `the response is not valid protobuf: ${error instanceof Error ? error.message : String(error)}`,
        exchange,
      };
    }
    const exchange = { request, response: this.#response(answer.status, answer.headers, value) };
    const read = readResult(
      this.target.version,
      'protojson',
      operation,
      value,
      `${this.target.url}${method.path}`,
    );
    return read.ok
      ? { kind: 'result', value: read.value, raw: value, exchange }
      : { kind: 'invalid', problem: read.problem, exchange };
  }

  async stream(
    operation: StreamingOperationName,
    request: object,
    settings: CallSettings = {},
  ): Promise<StreamOutcome> {
    const outcome = await this.#stream(operation, request, settings);
    this.#onOutcome(operation, outcome);
    return outcome;
  }

  async #stream(
    operation: StreamingOperationName,
    request: object,
    settings: CallSettings,
  ): Promise<StreamOutcome> {
    const method = this.#method(operation);
    const message = this.#message(operation, request);
    const metadata = grpcCallMetadata(this.target, this.#environment, settings);
    const wireRequest_ = this.#request(method.path, message, metadata);
    const abort = new AbortController();
    const signal = AbortSignal.any([this.#environment.signal, abort.signal]);
    let answer;
    let first;
    try {
      for (let attempt = 0; ; attempt++) {
        answer = await this.#environment.grpc.stream({
          target: this.target.url,
          path: method.path,
          request: method.encode(message),
          metadata,
          signal,
          timeoutMs: this.#environment.timeoutMs,
        });
        first = await answer.next();
        if (!('status' in first) || first.status.code !== RESOURCE_EXHAUSTED) break;
        if (attempt >= RATE_LIMIT_RETRIES) break;
        await pause(retryAfterMs(trailer(first.status, 'retry-after')), this.#environment.signal);
      }
    } catch (error) {
      return this.#unreachable(error, { request: wireRequest_ }) as StreamOutcome;
    }
    if ('status' in first && first.status.code !== 0) {
      const exchange = {
        request: wireRequest_,
        response: this.#response(first.status, answer.headers, undefined),
      };
      if (first.status.code === 14)
        return { kind: 'unreachable', problem: `UNAVAILABLE: ${first.status.message}`, exchange };
      return { kind: 'error', error: this.#error(first.status, exchange), exchange };
    }
    const firstId = firstEventIdOf(
      answer.headers.find(([name]) => name === FIRST_EVENT_ID_HEADER)?.[1],
    );
    const where = `${this.target.url}${method.path}`;
    const shown: unknown[] = [];
    let ended: GrpcStatus | undefined;
    let position = 0;
    let pending: Promise<{ message: Uint8Array } | { status: GrpcStatus }> | undefined;
    let buffered: { message: Uint8Array } | { status: GrpcStatus } | undefined = first;
    const decodeMessage = (bytes: Uint8Array): StreamEventRead => {
      const id = firstId === undefined ? {} : { id: String(firstId + position) };
      position++;
      let value: unknown;
      try {
        value = method.decode(bytes);
      } catch (error) {
        return {
          ...id,
          raw: undefined,
          problem: `an event is not valid protobuf: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      if (shown.length < 5) shown.push(value);
      const read = readEvent(this.target.version, 'protojson', value, where);
      return read.ok
        ? { ...id, raw: value, payload: read.value.payload }
        : { ...id, raw: value, problem: read.problem };
    };
    const endOf = (status: GrpcStatus, exchange: Exchange): StreamEnd => {
      ended = status;
      if (status.code === 0) return { end: 'closed' };
      if (status.code === 1) return { end: 'stopped' };
      return { end: 'error', error: this.#error(status, exchange) };
    };
    const exchangeNow = (): Exchange => ({
      request: wireRequest_,
      response: wireResponse(this.#environment.secrets, {
        status: ended === undefined ? 'OK (0), streaming' : grpcCodeText(ended.code),
        headers: answer.headers,
        body: shown.map((value) => JSON.stringify(value)).join('\n'),
      }),
    });
    const events: EventStream = {
      strayLines: [],
      next: async (timeoutMs) => {
        if (ended !== undefined && buffered === undefined) return endOf(ended, exchangeNow());
        let item = buffered;
        buffered = undefined;
        if (item === undefined) {
          pending ??= answer.next();
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<'timeout'>((resolve) => {
            timer = setTimeout(() => resolve('timeout'), timeoutMs);
          });
          const raced = await Promise.race([pending, timeout]);
          clearTimeout(timer);
          if (raced === 'timeout') return { end: 'timeout' };
          pending = undefined;
          item = raced;
        }
        return 'message' in item ? decodeMessage(item.message) : endOf(item.status, exchangeNow());
      },
      close: () => {
        abort.abort();
        answer.cancel();
      },
    };
    return { kind: 'stream', mediaType: undefined, events, exchange: exchangeNow };
  }

  async invalidGetTask(): Promise<{ outcome: CallOutcome; field: string }> {
    const message =
      this.target.version === '1.0' ? this.#message('GetTask', { id: '' }) : { name: '' };
    const outcome = await this.#unary('GetTask', message, {});
    this.#onOutcome('GetTask', outcome);
    return { outcome, field: this.target.version === '1.0' ? 'id' : 'name' };
  }
}
