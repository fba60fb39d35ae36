/**
 * The telemetry of one A2A call as the server handles it, whatever the binding: its SERVER span
 * named after the method, child of the transport's span when an instrumentation made one, else
 * of the caller's `traceparent` (or, when inbound context is not trusted, the root of a new trace
 * that links to it); its attributes and status; its duration; and for a stream, the time to its
 * first event, its event count and how it ended. The server interceptor drives it: the operation
 * runs in {@link ServerCallTelemetry.context}, so that the agent's own spans, and its calls to
 * other agents, are children of this span.
 */

import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import type { StreamResponse } from '../protocol/generated/types.js';
import type { OperationName } from '../protocol/operations.js';
import { requestAttributes, setEventAttributes, setResultAttributes } from './call-attributes.js';
import { errorTypeOf } from './error-type.js';
import { tandemInstruments } from './instruments.js';
import {
  ATTR_A2A_METHOD_NAME,
  ATTR_A2A_PROTOCOL_BINDING,
  ATTR_A2A_PROTOCOL_VERSION,
  ATTR_A2A_STREAM_END_REASON,
  ATTR_A2A_STREAM_EVENTS,
  ATTR_A2A_TASK_STATE,
  ATTR_A2A_TENANT,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_AGENT_VERSION,
  type StreamEndReason,
} from './telemetry-attributes.js';
import { tandemTracer } from './telemetry-scope.js';
import { extractTraceContext } from './trace-context.js';

/**
 * What the telemetry reads of a call: a structural subset of the server's call, so that the
 * server's call object is passed as it is.
 */
export interface ServerCallFacts {
  /** `JSONRPC`, `HTTP+JSON`, `GRPC`... */
  readonly binding: string;
  /** The version the call speaks: `1.0`, or `0.3` through a compat door. */
  readonly protocolVersion: string;
  readonly tenant: string;
  readonly agent: {
    readonly card: { readonly name: string; readonly version?: string | undefined };
  };
  /** The call's service parameters and transport headers, by lower-case name. */
  readonly serviceParameters: { get(name: string): string | null | undefined };
}

/** What the server's telemetry is configured with. */
export interface ServerTelemetryOptions {
  /**
   * Whether a caller's `traceparent` (and `tracestate`, `baggage`) is the parent of the server's
   * span. Default true. At an edge that callers outside reach, `false` starts a new trace for each
   * call, which links to the caller's context instead, and drops the caller's baggage.
   */
  readonly trustInboundContext?: boolean | undefined;
}

/** How a server stream ended, as observed: the observer's three ends. */
export type ObservedStreamEnd =
  | { readonly kind: 'completed' }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'canceled' };

/** Metric attributes by operation, binding, version and agent: made once, then reused. */
const metricAttributeCache = new Map<string, Attributes>();

function metricAttributesOf(operation: string, call: ServerCallFacts): Attributes {
  const agentName = call.agent.card.name;
  const key = `${operation}\n${call.binding}\n${call.protocolVersion}\n${agentName}`;
  let attributes = metricAttributeCache.get(key);
  if (attributes === undefined) {
    attributes = {
      [ATTR_A2A_METHOD_NAME]: operation,
      [ATTR_A2A_PROTOCOL_BINDING]: call.binding,
      [ATTR_A2A_PROTOCOL_VERSION]: call.protocolVersion,
      [ATTR_GEN_AI_AGENT_NAME]: agentName,
    };
    // Bounded by what the server serves; the guard keeps a misbehaving caller from growing it.
    if (metricAttributeCache.size < 4096) metricAttributeCache.set(key, attributes);
  }
  return attributes;
}

/** The parent of the call's span, and the links it starts with. */
function parentOf(call: ServerCallFacts, trust: boolean): { parent: Context; links: Link[] } {
  const active = context.active();
  // A transport instrumentation (HTTP, gRPC) already made the call's transport span, from the
  // caller's traceparent: it is the parent, as the conventions draw it — when the caller is
  // trusted. Untrusted, that span is the caller's trace too, so the call starts a new one all the
  // same (linked to what the caller sent).
  if (trust && trace.getSpan(active) !== undefined) return { parent: active, links: [] };
  const read = (name: string): string | undefined => call.serviceParameters.get(name) ?? undefined;
  const inbound = extractTraceContext(read, trace.deleteSpan(active));
  if (trust) return { parent: inbound, links: [] };
  const remote = trace.getSpanContext(inbound);
  return {
    parent: propagation.deleteBaggage(trace.deleteSpan(active)),
    links: remote === undefined ? [] : [{ context: remote, attributes: { 'a2a.link': 'inbound' } }],
  };
}

export class ServerCallTelemetry {
  /** The context to run the operation in: the call's span is active there. */
  readonly context: Context;
  readonly #span: Span;
  readonly #recording: boolean;
  readonly #metricAttributes: Attributes;
  readonly #started = performance.now();
  #events = 0;
  #lastState: string | undefined;
  #ended = false;

  private constructor(span: Span, parent: Context, metricAttributes: Attributes) {
    this.#span = span;
    this.#recording = span.isRecording();
    this.#metricAttributes = metricAttributes;
    // With no SDK and no caller's context, the span is the API's invalid no-op: putting it in
    // the context would change nothing but cost a context per call.
    this.context =
      this.#recording || isSpanContextValid(span.spanContext())
        ? trace.setSpan(parent, span)
        : parent;
  }

  /** Starts the span of a call, before the operation runs. */
  static start(
    operation: OperationName,
    call: ServerCallFacts,
    request: unknown,
    options: ServerTelemetryOptions = {},
  ): ServerCallTelemetry {
    const { parent, links } = parentOf(call, options.trustInboundContext !== false);
    const span = tandemTracer().startSpan(operation, { kind: SpanKind.SERVER, links }, parent);
    if (span.isRecording()) {
      span.setAttributes(requestAttributes(operation, request));
      span.setAttribute(ATTR_A2A_PROTOCOL_VERSION, call.protocolVersion);
      span.setAttribute(ATTR_A2A_PROTOCOL_BINDING, call.binding);
      span.setAttribute(ATTR_GEN_AI_AGENT_NAME, call.agent.card.name);
      const version = call.agent.card.version;
      if (version !== undefined && version !== '') {
        span.setAttribute(ATTR_GEN_AI_AGENT_VERSION, version);
      }
      if (call.tenant !== '') span.setAttribute(ATTR_A2A_TENANT, call.tenant);
    }
    return new ServerCallTelemetry(span, parent, metricAttributesOf(operation, call));
  }

  /** The span, for links and events an interceptor adds. */
  get span(): Span {
    return this.#span;
  }

  /** A unary call answered `result`. */
  succeeded(result: unknown): void {
    if (this.#recording) setResultAttributes(this.#span, result);
    this.#end(undefined);
  }

  /** The call failed before answering (or before its stream started). */
  failed(error: unknown): void {
    this.#end(error);
  }

  /** One event of the call's stream, as its consumer takes it. */
  event(payload: StreamResponse): void {
    if (this.#events === 0) {
      tandemInstruments().serverTimeToFirstEvent.record(
        (performance.now() - this.#started) / 1000,
        this.#metricAttributes,
      );
    }
    this.#events++;
    const state = payload.task?.status.state ?? payload.statusUpdate?.status.state;
    if (state !== undefined) this.#lastState = state;
    if (this.#recording) setEventAttributes(this.#span, payload);
  }

  /**
   * The call's stream ended: after its last event (`completed`, or `canceled` when the task's
   * last state is TASK_STATE_CANCELED), broken by an error (`error`), or stopped by its consumer
   * — the client went away or cancelled the call (`client_gone`; the task goes on).
   */
  streamEnded(end: ObservedStreamEnd): void {
    const reason: StreamEndReason =
      end.kind === 'failed'
        ? 'error'
        : end.kind === 'canceled'
          ? 'client_gone'
          : this.#lastState === 'TASK_STATE_CANCELED'
            ? 'canceled'
            : 'completed';
    if (this.#recording) {
      this.#span.setAttribute(ATTR_A2A_STREAM_END_REASON, reason);
      this.#span.setAttribute(ATTR_A2A_STREAM_EVENTS, this.#events);
    }
    tandemInstruments().serverStreamEvents.record(this.#events, {
      ...this.#metricAttributes,
      [ATTR_A2A_STREAM_END_REASON]: reason,
    });
    this.#end(end.kind === 'failed' ? end.error : undefined);
  }

  #end(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    let attributes = this.#metricAttributes;
    if (error !== undefined) {
      const type = errorTypeOf(error);
      attributes = { ...attributes, [ATTR_ERROR_TYPE]: type };
      this.#span.setAttribute(ATTR_ERROR_TYPE, type);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    }
    if (this.#recording && this.#lastState !== undefined) {
      this.#span.setAttribute(ATTR_A2A_TASK_STATE, this.#lastState);
    }
    this.#span.end();
    tandemInstruments().serverOperationDuration.record(
      (performance.now() - this.#started) / 1000,
      attributes,
    );
  }
}
