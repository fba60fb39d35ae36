/**
 * Telemetry of the client commands: with an OTLP endpoint in the standard variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or a per-signal one), the command starts the `tandem/otel`
 * preset, so that its calls are CLIENT spans whose context reaches the agent, and exports them
 * before it exits. A `TRACEPARENT` (with `TRACESTATE`, `BAGGAGE`) in the environment is the
 * parent of the command's spans — the environment-variable carrier of trace context — so that a
 * script's own trace goes on through the agents it calls. Without an endpoint nothing loads.
 */

import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';

const ENDPOINT_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
];

function wantsTelemetry(env: NodeJS.ProcessEnv): boolean {
  return ENDPOINT_VARIABLES.some((name) => (env[name] ?? '').trim() !== '');
}

/** Runs a client command, inside the preset and the environment's trace context when asked. */
export async function runWithTelemetry(run: () => Promise<number>): Promise<number> {
  const env = process.env;
  if (!wantsTelemetry(env)) return run();
  const { startTelemetry } = await import('../otel.js');
  const telemetry = await startTelemetry({ serviceName: 'tandem-cli', runtimeMetrics: false });
  const carrier: Record<string, string> = {};
  if (env.TRACEPARENT !== undefined) carrier.traceparent = env.TRACEPARENT;
  if (env.TRACESTATE !== undefined) carrier.tracestate = env.TRACESTATE;
  if (env.BAGGAGE !== undefined) carrier.baggage = env.BAGGAGE;
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  try {
    return await context.with(parent, run);
  } finally {
    await telemetry.shutdown();
  }
}
