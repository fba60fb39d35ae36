/**
 * The trace context a task was created in — the span active when the message that created it was
 * admitted, which is the SERVER span of that call when the server traces its calls — kept with
 * the task by every store and never put on the wire. Whatever happens to the task later, in
 * another call or on another replica, finds its way back to where it began through it: push
 * deliveries are its children, resumed streams and continuing messages link to it, and so do the
 * messages that name the task in `referenceTaskIds`.
 *
 * It is kept in W3C Trace Context form (`traceparent`, `tracestate`) whatever propagators the
 * application registered: the form is a store format here, read back by this module, not a
 * header sent to anyone.
 */

import {
  context,
  createTraceState,
  isSpanContextValid,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';

/** A task's originating trace context, as stores keep it. */
export interface TaskTraceContext {
  /** `00-<trace id>-<span id>-<flags>`. */
  readonly traceparent: string;
  /** The vendors' entries of the span's trace state, when it had any. */
  readonly tracestate?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The trace context of the span active in `from` (default: the active context), or `undefined`
 * when there is none — no SDK registered, or a call nobody traces — so that nothing is stored.
 */
export function captureTaskTraceContext(
  from: Context = context.active(),
): TaskTraceContext | undefined {
  const span = trace.getSpanContext(from);
  if (span === undefined || !isSpanContextValid(span)) return undefined;
  const flags = (span.traceFlags & TraceFlags.SAMPLED) !== 0 ? '01' : '00';
  const traceparent = `00-${span.traceId}-${span.spanId}-${flags}`;
  const tracestate = span.traceState?.serialize();
  return tracestate === undefined || tracestate === ''
    ? { traceparent }
    : { traceparent, tracestate };
}

/**
 * The span context a stored trace context stands for, marked remote (it was made by another
 * call, perhaps another process); `undefined` when there is none or it is not a valid one.
 */
export function spanContextOfTask(stored: TaskTraceContext | undefined): SpanContext | undefined {
  if (stored === undefined) return undefined;
  const match = TRACEPARENT.exec(stored.traceparent);
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  const span: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(stored.tracestate === undefined ? {} : { traceState: createTraceState(stored.tracestate) }),
  };
  return isSpanContextValid(span) ? span : undefined;
}

/**
 * A context whose parent span is the task's originating one, for work done on the task's behalf
 * outside any call (a push delivery); the root context when the task has none.
 */
export function contextOfTask(stored: TaskTraceContext | undefined): Context {
  const span = spanContextOfTask(stored);
  return span === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, span);
}

/**
 * The text a SQL store keeps in its `trace_context` column: the `traceparent`, then the
 * `tracestate` after a newline when there is one (neither can hold a newline).
 */
export function encodeTaskTraceContext(stored: TaskTraceContext | undefined): string | null {
  if (stored === undefined) return null;
  return stored.tracestate === undefined
    ? stored.traceparent
    : `${stored.traceparent}\n${stored.tracestate}`;
}

/** The trace context of a `trace_context` column (see {@link encodeTaskTraceContext}). */
export function decodeTaskTraceContext(
  text: string | null | undefined,
): TaskTraceContext | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  const newline = text.indexOf('\n');
  if (newline < 0) return { traceparent: text };
  return { traceparent: text.slice(0, newline), tracestate: text.slice(newline + 1) };
}
