/**
 * A tracing server interceptor for the trace tests, driving `ServerCallTelemetry` the way the
 * server's own tracing interceptor does: the SERVER span started from the call, the operation
 * (and so the agent's execution) run in its context, a stream's span ended with the stream.
 * Kept here so that the trace tests depend on the telemetry core only. Every trace test takes its
 * server's tracing from {@link tracedServer}: where the server installs its own tracing
 * interceptor by default, that one function becomes `{ telemetry: options }` (and the default
 * `{}`), so that a call still has exactly one SERVER span.
 */

import { context } from '@opentelemetry/api';
import { isEventStream, observeEvents, type ServerInterceptor } from '../../../src/server.js';
import {
  ServerCallTelemetry,
  type ServerTelemetryOptions,
} from '../../../src/telemetry/server-call-telemetry.js';

/** One SERVER span per call, the operation run in its context. */
export function traceCalls(options: ServerTelemetryOptions = {}): ServerInterceptor {
  return (next) => async (operation, call, request) => {
    const telemetry = ServerCallTelemetry.start(operation, call, request, options);
    try {
      const result = await context.with(telemetry.context, () => next(operation, call, request));
      if (!isEventStream(result)) {
        telemetry.succeeded(result);
        return result;
      }
      return observeEvents(result, {
        onEvent: (event) => telemetry.event(event.payload),
        onEnd: (end) => telemetry.streamEnded(end),
      });
    } catch (error) {
      telemetry.failed(error);
      throw error;
    }
  };
}

/** The server options that trace every call: spread into the options of a server. */
export function tracedServer(options: ServerTelemetryOptions = {}): {
  readonly interceptors: ServerInterceptor[];
} {
  return { interceptors: [traceCalls(options)] };
}
