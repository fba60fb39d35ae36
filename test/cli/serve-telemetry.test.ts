/**
 * The telemetry flags of `tandem serve`, as a child process: `--metrics` serves Prometheus text on
 * the main port, `--metrics-port` on a listener of its own that carries no A2A traffic,
 * `--otlp-endpoint` exports the calls' SERVER spans to an OTLP/HTTP receiver, and
 * `--untrusted-traceparent` starts each call's trace afresh, linked to the caller's.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpReceiver } from '../observability/support/otlp-receiver.js';
import { CliProcess, ensureBuilt } from './cli-harness.js';

const BANNER = /Tandem is serving .* at (http:\/\/\S+)/;
const METRICS = /metrics +(http:\/\/\S+)/;

beforeAll(ensureBuilt);

async function start(
  args: readonly string[],
  env?: Record<string, string>,
): Promise<{ serve: CliProcess; url: string }> {
  const serve = new CliProcess(
    ['serve', '--store', 'memory', '--port', '0', '--agent', 'echo', ...args],
    env,
  );
  await serve.waitFor(BANNER, { stream: 'stderr' });
  return { serve, url: BANNER.exec(serve.stderr)?.[1] as string };
}

async function stop(serve: CliProcess): Promise<void> {
  serve.signal('SIGTERM');
  expect(await serve.exited).toBe(0);
}

function sendMessage(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'echo hi' }] },
    }),
  });
}

describe('tandem serve telemetry flags', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterAll(() => receiver.close());

  it('--metrics serves Prometheus text at /metrics on the main port', async () => {
    const { serve, url } = await start(['--metrics']);
    try {
      expect((await sendMessage(url)).status).toBe(200);
      const response = await fetch(`${url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await response.text()).toContain('a2a_server_operation_duration_seconds_bucket');
    } finally {
      await stop(serve);
    }
  });

  it('--metrics-port serves /metrics on a listener of its own, with no A2A route there', async () => {
    const { serve, url } = await start(['--metrics-port', '0']);
    try {
      const metricsUrl = METRICS.exec(serve.stderr)?.[1] as string;
      expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(metricsUrl.startsWith(url)).toBe(false);
      expect((await sendMessage(url)).status).toBe(200);
      expect(await (await fetch(metricsUrl)).text()).toContain(
        'a2a_server_operation_duration_seconds',
      );
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
      const base = metricsUrl.replace(/\/metrics$/, '');
      expect((await sendMessage(base)).status).toBe(404);
    } finally {
      await stop(serve);
    }
  });

  it('--otlp-endpoint exports each call as a SERVER span, continuing the caller’s trace', async () => {
    const { serve, url } = await start(['--otlp-endpoint', receiver.endpoint], {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    const inbound = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    try {
      expect((await sendMessage(url, { traceparent: inbound })).status).toBe(200);
    } finally {
      await stop(serve); // the shutdown exports what is pending
    }
    const span = receiver.spans.find((s) => s.name === 'SendMessage' && s.kind === 2);
    expect(span?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span?.parentSpanId).toBe('b7ad6b7169203331');
  });

  it('--untrusted-traceparent starts a new trace, linked to the caller’s', async () => {
    const { serve, url } = await start(
      ['--otlp-endpoint', receiver.endpoint, '--untrusted-traceparent'],
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    );
    const inbound = '00-1af7651916cd43dd8448eb211c80319d-c7ad6b7169203332-01';
    try {
      expect((await sendMessage(url, { traceparent: inbound })).status).toBe(200);
    } finally {
      await stop(serve);
    }
    const span = receiver.spans.find(
      (s) =>
        s.name === 'SendMessage' &&
        s.kind === 2 &&
        s.links?.some((link) => link.traceId === '1af7651916cd43dd8448eb211c80319d'),
    );
    expect(span).toBeDefined();
    expect(span?.traceId).not.toBe('1af7651916cd43dd8448eb211c80319d');
  });
});
