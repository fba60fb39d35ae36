/**
 * The server's telemetry, as the outermost server interceptor every server installs by default:
 * one SERVER span per A2A call on every binding (JSON-RPC, HTTP+JSON, gRPC, the 0.3 doors), named
 * after the method, whose context the operation — and the agent's execution with it — runs in; a
 * streaming call's span lasting to its stream's end; the operation metrics. The span itself and
 * its attributes are `ServerCallTelemetry`'s (src/telemetry), the one place spans are made, so
 * that other features (push, resumed streams) add to the same span through
 * {@link activeServerSpanContext} rather than making their own.
 *
 * With no OpenTelemetry SDK registered every span and instrument is the API's no-op: no attribute
 * is gathered for a span that does not record, and the context the operation runs in is the one
 * it came with.
 */

import { context, trace, type SpanContext } from '@opentelemetry/api';
import type { OperationName } from '../../protocol/operations.js';
import { isEventStream, observeEvents } from '../../runtime/observed-event-stream.js';
import {
  ServerCallTelemetry,
  type ServerTelemetryOptions,
} from '../../telemetry/server-call-telemetry.js';
import type { OperationResult, ServerInterceptor } from './server-interceptor.js';

export type { ServerTelemetryOptions } from '../../telemetry/server-call-telemetry.js';

/**
 * The interceptor: spans and metrics of every call. `createA2AServer` and the listeners install
 * it first, unless their `telemetry` option is `false`.
 */
export function telemetryInterceptor(options: ServerTelemetryOptions = {}): ServerInterceptor {
  return (next) =>
    async <N extends OperationName>(
      operation: N,
      call: Parameters<typeof next>[1],
      request: Parameters<typeof next<N>>[2],
    ): Promise<OperationResult<N>> => {
      const telemetry = ServerCallTelemetry.start(operation, call, request, options);
      let result: OperationResult<N>;
      try {
        result = await context.with(telemetry.context, () => next(operation, call, request));
      } catch (error) {
        telemetry.failed(error);
        throw error;
      }
      if (!isEventStream(result)) {
        telemetry.succeeded(result);
        return result;
      }
      return observeEvents(result, {
        onEvent: (event) => telemetry.event(event.payload),
        onEnd: (end) => telemetry.streamEnded(end),
      }) as OperationResult<N>;
    };
}

/**
 * The span context of the A2A call running now (its SERVER span), for code that runs inside the
 * call — an interceptor after this one, the agent's execution — and wants to record it with the
 * task or link to it; `undefined` outside a traced call.
 */
export function activeServerSpanContext(): SpanContext | undefined {
  return trace.getSpanContext(context.active());
}
