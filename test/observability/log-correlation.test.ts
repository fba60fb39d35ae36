/**
 * Log lines join their trace: a line of the server logger written inside a span carries that
 * span's `trace_id`, `span_id` and `trace_flags`, in JSON and pretty output; a line outside any
 * span carries none.
 */

import { context, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/server.js';
import {
  registerInMemoryTelemetry,
  type InMemoryTelemetry,
} from './support/in-memory-telemetry.js';

let telemetry: InMemoryTelemetry;

beforeAll(() => {
  telemetry = registerInMemoryTelemetry();
});

afterAll(() => telemetry.shutdown());

function capture(pretty: boolean): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ pretty, destination: { write: (text) => lines.push(text) } });
  return { logger, lines };
}

describe('log correlation', () => {
  it('puts the active span’s ids on the lines written inside it, and none outside', () => {
    const { logger, lines } = capture(false);
    const span = trace.getTracer('test').startSpan('work');
    context.with(trace.setSpan(context.active(), span), () => logger.info({ step: 1 }, 'inside'));
    span.end();
    logger.info({ step: 2 }, 'outside');
    const [inside, outside] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(inside).toMatchObject({
      msg: 'inside',
      trace_id: span.spanContext().traceId,
      span_id: span.spanContext().spanId,
      trace_flags: '01',
    });
    expect(outside?.msg).toBe('outside');
    expect(outside).not.toHaveProperty('trace_id');
  });

  it('keeps them in pretty lines', () => {
    const { logger, lines } = capture(true);
    const span = trace.getTracer('test').startSpan('work');
    context.with(trace.setSpan(context.active(), span), () => logger.warn({}, 'pretty'));
    span.end();
    expect(lines[0]).toContain(`trace_id=${span.spanContext().traceId}`);
  });
});
