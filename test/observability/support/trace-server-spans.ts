/**
 * A tracing server interceptor for the trace tests, driving `ServerCallTelemetry` the way the
 * server's own tracing interceptor does: the SERVER span started from the call, the operation
 * (and so the agent's execution) run in its context, a stream's span ended with the stream.
 * Kept here so that the trace tests depend on the telemetry core only; where the library ships
 * its interceptor, these tests hold it to the same behaviour.
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
