/**
 * The client commands of `tandem` with an OTLP endpoint in the standard variables: each call is
 * a CLIENT span exported before the command exits, under the `TRACEPARENT` of the environment
 * when one is given, and its context reaches the agent. Without an endpoint the command loads
 * no SDK and exports nothing.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNodeServer, createRequestHandler, type A2ANodeServer } from '../../src/server.js';
import { ANONYMOUS, type Authenticator } from '../../src/server.js';
import { ensureBuilt, runCli } from '../cli/cli-harness.js';
import { clientTestAgent } from '../support/agents.js';
import { attributeOf, OtlpReceiver } from './support/otlp-receiver.js';

let server: A2ANodeServer;
let url: string;
let receiver: OtlpReceiver;
const traceparents: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  const authenticate: Authenticator = ({ headers }) => {
    const traceparent = headers.get('traceparent');
    if (traceparent != null) traceparents.push(traceparent);
    return ANONYMOUS;
  };
  server = createNodeServer({
    agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
    heartbeatMs: 0,
    authenticate,
  });
  ({ url } = await server.listen({ port: 0, host: '127.0.0.1' }));
  receiver = await OtlpReceiver.start();
}, 120_000);

afterAll(async () => {
  await server.shutdown({ deadlineMs: 500 });
  await receiver.close();
});

beforeEach(() => {
  receiver.exports.length = 0;
  traceparents.length = 0;
});

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

describe('tandem send with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports its SendMessage span under the environment’s TRACEPARENT', async () => {
    const result = await runCli(['send', url, 'echo traced'], {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        TRACEPARENT: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    // Exported before the process exited: nothing to wait for.
    const span = receiver.spans.find((s) => s.name === 'SendMessage');
    expect(span?.kind).toBe(3);
    expect(span?.traceId).toBe(PARENT_TRACE);
    expect(span?.parentSpanId).toBe(PARENT_SPAN);
    expect(attributeOf(span?.attributes, 'a2a.protocol.binding')).toBe('JSONRPC');
    const resource = receiver.exports[0]?.resourceAttributes;
    expect(attributeOf(resource, 'service.name')).toBe('tandem-cli');
    expect(traceparents).toEqual([`00-${PARENT_TRACE}-${span?.spanId}-01`]);
    expect(receiver.metrics.map((m) => m.name)).toContain('a2a.client.operation.duration');
  });

  it('exports nothing and sends no traceparent without an endpoint', async () => {
    const result = await runCli(['send', url, 'echo plain'], {
      env: { TRACEPARENT: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(receiver.exports).toEqual([]);
    expect(traceparents).toEqual([]);
  });
});
