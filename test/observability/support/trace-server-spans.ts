/**
 * The server options of the trace tests. The server traces every call by default (one SERVER span
 * per call, its operation and so the agent's execution run in the span's context); the tests take
 * their options from {@link tracedServer} so that a call has exactly one SERVER span, made by the
 * server's own interceptor.
 */

import type { ServerTelemetryOptions } from '../../../src/telemetry/server-call-telemetry.js';

/** The server options that trace every call: spread into the options of a server. */
export function tracedServer(options: ServerTelemetryOptions = {}): {
  readonly telemetry: ServerTelemetryOptions;
} {
  return { telemetry: options };
}
