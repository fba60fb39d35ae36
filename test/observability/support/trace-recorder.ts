/**
 * The OpenTelemetry SDK of a trace test: every span kept as it ends, and a wait for the span a
 * step expects (bounded, naming the step), so that a test waits for the event itself — a span
 * ending, perhaps in a delivery that outlives the call — rather than for time to pass. W3C trace
 * context and baggage propagation and the AsyncLocalStorage context manager, as an application
 * registers them.
 */

import { context, propagation, trace, type SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import {
  BasicTracerProvider,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export type SpanTest = (span: ReadableSpan) => boolean;

export interface TraceRecorder {
  /** Every span ended so far, in the order they ended. */
  readonly spans: () => readonly ReadableSpan[];
  /** The first ended span that passes `test`, now or once it ends; rejects after `ms`. */
  readonly waitFor: (test: SpanTest, what: string, ms?: number) => Promise<ReadableSpan>;
  readonly reset: () => void;
  readonly shutdown: () => Promise<void>;
}

/** Registers the recorder's SDK with the API; `shutdown` unregisters it. */
export function registerTraceRecorder(): TraceRecorder {
  let ended: ReadableSpan[] = [];
  const waiters = new Set<{ test: SpanTest; resolve: (span: ReadableSpan) => void }>();
  const processor: SpanProcessor = {
    onStart: () => undefined,
    onEnd(span) {
      ended.push(span);
      for (const waiter of waiters) {
        if (!waiter.test(span)) continue;
        waiters.delete(waiter);
        waiter.resolve(span);
      }
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  trace.setGlobalTracerProvider(provider);
  return {
    spans: () => ended,
    waitFor(test, what, ms = 10_000) {
      const found = ended.find(test);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = {
          test,
          resolve: (span: ReadableSpan) => {
            clearTimeout(timer);
            resolve(span);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const seen = ended.map((span) => span.name).join(', ') || 'none';
          reject(
            new Error(`Timed out after ${ms} ms waiting for the span of: ${what} (ended: ${seen})`),
          );
        }, ms);
        waiters.add(waiter);
      });
    },
    reset: () => {
      ended = [];
    },
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** Whether `span` is a Tandem span of `kind` (and, given, of the agent named `agent`). */
export function tandemSpan(kind: SpanKind, agent?: string, name?: string): SpanTest {
  return (span) =>
    span.instrumentationScope.name === 'tandem' &&
    span.kind === kind &&
    (agent === undefined || span.attributes['gen_ai.agent.name'] === agent) &&
    (name === undefined || span.name === name);
}

/** The parent span id of `span`, `undefined` for a root. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
