/**
 * The client's telemetry, as the outermost interceptor of every client: one CLIENT span per call
 * named after the operation (the A2A conventions), the call's W3C trace context and baggage
 * injected into its service parameters (HTTP headers on JSON-RPC and HTTP+JSON, metadata on
 * gRPC, the 0.3 transports alike), and `a2a.client.operation.duration`. A stream's span lasts
 * until the caller has consumed the stream (or left it), so that its duration is the stream's.
 * Each attempt of a retried call, and each resumed connection of a stream (`SubscribeToTask`),
 * is a call of its own with its own span, as the server sees it. Card fetches are not spans.
 * With no OpenTelemetry SDK registered, the span is the API's no-op and nothing is injected.
 */

import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import type { AgentInterface } from '../protocol/generated/types.js';
import { CURRENT_PROTOCOL_VERSION, parseProtocolVersion } from '../protocol/version.js';
import type { StreamItem } from '../bindings/client/client-transport.js';
import {
  requestAttributes,
  setEventAttributes,
  setResultAttributes,
} from '../telemetry/call-attributes.js';
import { protocolErrorTypeOf } from '../telemetry/error-type.js';
import { tandemInstruments } from '../telemetry/instruments.js';
import {
  ATTR_A2A_METHOD_NAME,
  ATTR_A2A_PROTOCOL_BINDING,
  ATTR_A2A_PROTOCOL_VERSION,
  ATTR_A2A_STREAM_END_REASON,
  ATTR_A2A_STREAM_EVENTS,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_AGENT_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  OTHER_ERROR_TYPE,
  type StreamEndReason,
} from '../telemetry/telemetry-attributes.js';
import { tandemTracer } from '../telemetry/telemetry-scope.js';
import { injectTraceContext } from '../telemetry/trace-context.js';
import {
  CallTimeoutError,
  ConnectionError,
  CustomJsonRpcError,
  HttpStatusError,
  ProtocolViolationError,
} from './client-errors.js';
import type { CallResult, ClientCall, Interceptor } from './interceptor.js';

/** Where calls go, as the conventions' `server.address` and `server.port` read it. */
export interface ServerEndpoint {
  readonly address: string;
  readonly port: number | undefined;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * The host and port of an interface URL: an HTTP URL, or gRPC's bare `host:port` (an IPv6 host
 * in brackets) or `grpc://host:port`.
 */
export function serverEndpointOf(url: string): ServerEndpoint | undefined {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `grpc://${url}`;
  if (!URL.canParse(absolute)) return undefined;
  const parsed = new URL(absolute);
  if (parsed.hostname === '') return undefined;
  const address = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
  return { address, port };
}

/**
 * `error.type` of a client call: the A2A error's type, or the class of the local failure —
 * `timeout`, `canceled`, the HTTP status of a failure without an A2A error, the code of a
 * JSON-RPC error outside A2A's, `ConnectionError`, `ProtocolViolationError` — else `_OTHER`.
 */
export function clientErrorTypeOf(error: unknown): string {
  if (error instanceof CallTimeoutError) return 'timeout';
  if (error instanceof HttpStatusError) return String(error.status);
  if (error instanceof CustomJsonRpcError) return String(error.code);
  if (error instanceof ConnectionError) return 'ConnectionError';
  if (error instanceof ProtocolViolationError) return 'ProtocolViolationError';
  return protocolErrorTypeOf(error) ?? OTHER_ERROR_TYPE;
}

/** What the telemetry of one client knows about its agent. */
export interface ClientTelemetryTarget {
  readonly agentInterface: AgentInterface;
  readonly agentName?: string | undefined;
  readonly agentVersion?: string | undefined;
}

/** A call's span and what its measurement needs. */
class CallTelemetry {
  readonly #span: Span;
  readonly #started = performance.now();
  readonly #metricAttributes: Attributes;
  #ended = false;

  constructor(span: Span, metricAttributes: Attributes) {
    this.#span = span;
    this.#metricAttributes = metricAttributes;
  }

  get span(): Span {
    return this.#span;
  }

  /** Ends the span and records the duration; `error` set when the call failed. */
  end(error?: unknown, reason?: StreamEndReason): void {
    if (this.#ended) return;
    this.#ended = true;
    const span = this.#span;
    let attributes = this.#metricAttributes;
    if (reason !== undefined) span.setAttribute(ATTR_A2A_STREAM_END_REASON, reason);
    if (error !== undefined) {
      const type = clientErrorTypeOf(error);
      attributes = { ...attributes, [ATTR_ERROR_TYPE]: type };
      if (type !== 'canceled') {
        span.setAttribute(ATTR_ERROR_TYPE, type);
        // No exception event: an error's message is not telemetry (it may quote what was sent).
        span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      }
    }
    span.end();
    tandemInstruments().clientOperationDuration.record(
      (performance.now() - this.#started) / 1000,
      attributes,
    );
  }
}

/**
 * The events of a stream, observed: each names the task and its state on the span, and the span
 * ends when the stream does — consumed (`completed`), left by its consumer (`canceled`), or
 * failed (`error`, or `canceled` when the caller aborted).
 */
async function* observedStream(
  items: AsyncIterable<StreamItem>,
  telemetry: CallTelemetry,
): AsyncGenerator<StreamItem, void, undefined> {
  let events = 0;
  let finished = false;
  const span = telemetry.span;
  const recording = span.isRecording();
  try {
    for await (const item of items) {
      events++;
      if (recording) setEventAttributes(span, item.payload);
      yield item;
    }
    finished = true;
    if (recording) span.setAttribute(ATTR_A2A_STREAM_EVENTS, events);
    telemetry.end(undefined, 'completed');
  } catch (error) {
    finished = true;
    if (recording) span.setAttribute(ATTR_A2A_STREAM_EVENTS, events);
    const canceled = clientErrorTypeOf(error) === 'canceled';
    telemetry.end(error, canceled ? 'canceled' : 'error');
    throw error;
  } finally {
    if (!finished) {
      if (recording) span.setAttribute(ATTR_A2A_STREAM_EVENTS, events);
      telemetry.end(undefined, 'canceled');
    }
  }
}

/** The telemetry interceptor of a client of `target`. */
export function telemetryInterceptor(target: ClientTelemetryTarget): Interceptor {
  const { agentInterface } = target;
  const endpoint = serverEndpointOf(agentInterface.url);
  const version =
    parseProtocolVersion(agentInterface.protocolVersion)?.text ?? CURRENT_PROTOCOL_VERSION;
  const common: Attributes = {
    [ATTR_A2A_PROTOCOL_VERSION]: version,
    [ATTR_A2A_PROTOCOL_BINDING]: agentInterface.protocolBinding,
  };
  if (endpoint !== undefined) {
    common[ATTR_SERVER_ADDRESS] = endpoint.address;
    if (endpoint.port !== undefined) common[ATTR_SERVER_PORT] = endpoint.port;
  }
  const spanOnly: Attributes = {};
  if (target.agentName !== undefined && target.agentName !== '') {
    spanOnly[ATTR_GEN_AI_AGENT_NAME] = target.agentName;
  }
  if (target.agentVersion !== undefined && target.agentVersion !== '') {
    spanOnly[ATTR_GEN_AI_AGENT_VERSION] = target.agentVersion;
  }
  // The metric attributes of each operation, made once: a measurement allocates nothing more.
  const metricAttributes = new Map<string, Attributes>();
  const metricAttributesOf = (operation: string): Attributes => {
    let attributes = metricAttributes.get(operation);
    if (attributes === undefined) {
      attributes = { ...common, [ATTR_A2A_METHOD_NAME]: operation };
      metricAttributes.set(operation, attributes);
    }
    return attributes;
  };

  return (next) =>
    async (call: ClientCall): Promise<CallResult> => {
      if (call.operation === 'GetAgentCard') return next(call);
      const span = tandemTracer().startSpan(call.operation, { kind: SpanKind.CLIENT });
      if (span.isRecording()) {
        span.setAttributes(requestAttributes(call.operation, call.message));
        span.setAttributes(common);
        span.setAttributes(spanOnly);
      }
      const telemetry = new CallTelemetry(span, metricAttributesOf(call.operation));
      const callContext = trace.setSpan(context.active(), span);
      injectTraceContext(call.headers, callContext);
      let result: CallResult;
      try {
        result = await context.with(callContext, next, undefined, call);
      } catch (error) {
        telemetry.end(error);
        throw error;
      }
      if (!result.stream) {
        if (span.isRecording()) setResultAttributes(span, result.message);
        telemetry.end();
        return result;
      }
      return { ...result, message: observedStream(result.message, telemetry) };
    };
}
