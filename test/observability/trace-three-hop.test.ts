/**
 * The three-hop trace: a client calls the orchestrator, which calls a peer through its own
 * client — real servers on loopback, over JSON-RPC and over gRPC (each hop on the binding of the
 * block). The whole chain is one trace, each span the child of the one before: the caller's
 * span, the client's CLIENT span, the orchestrator's SERVER span, the orchestrator's CLIENT span
 * to the peer (the agent runs in its call's context), the peer's SERVER span, and a span the
 * peer's agent makes itself (a tool).
 */

import { SpanKind, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardResolver, createClient, type A2AClient, type Task } from '../../src/client.js';
import { echo } from '../../src/agents/echo.js';
import { createOrchestratorAgent } from '../../src/agents/orchestrator/orchestrator-agent.js';
import { createGrpcServer } from '../../src/server-grpc.js';
import {
  createA2AServer,
  createNodeServer,
  createRequestHandler,
  type AgentDefinition,
} from '../../src/server.js';
import {
  parentOf,
  registerTraceRecorder,
  tandemSpan,
  type TraceRecorder,
} from './support/trace-recorder.js';
import { tracedServer } from './support/trace-server-spans.js';

let recorder: TraceRecorder;
beforeAll(() => {
  recorder = registerTraceRecorder();
});
afterAll(() => recorder.shutdown());

const PEER = 'Traced echo';
const ORCHESTRATOR = 'Traced orchestrator';

/** The echo agent, with a span of its own around its work, as an agent calling a tool makes. */
const peerAgent: AgentDefinition = {
  ...echo,
  card: { ...echo.card, name: PEER },
  execute: (ctx) =>
    trace.getTracer('peer-agent').startActiveSpan('tool.lookup', async (span) => {
      try {
        return await echo.execute(ctx);
      } finally {
        span.end();
      }
    }),
};

type Binding = 'JSONRPC' | 'GRPC';

/** A running server, and how to stop it. */
interface Served {
  readonly url: string;
  readonly close: () => Promise<void>;
}

/** A server of one agent at `/agents/<name>`, traced, on every binding. */
async function serveOne(agent: AgentDefinition, name: string): Promise<Served> {
  const server = createA2AServer({
    agents: [
      { path: `/agents/${name}`, handler: createRequestHandler({ agent, agentName: name }) },
    ],
    ...tracedServer(),
    http: { port: 0, host: '127.0.0.1' },
    grpc: { port: 0, host: '127.0.0.1' },
  });
  const address = await server.listen();
  return {
    url: `${(address.http?.url ?? '').replace(/\/$/, '')}/agents/${name}`,
    close: () => server.shutdown({ deadlineMs: 1_000 }),
  };
}

/**
 * A traced agent whose card lists gRPC alone (its card served over HTTP), so that a client that
 * prefers JSON-RPC — the orchestrator's — reaches it over gRPC.
 */
async function serveOverGrpcOnly(agent: AgentDefinition, name: string): Promise<Served> {
  const path = `/agents/${name}`;
  const handler = createRequestHandler({ agent, agentName: name });
  const traced = tracedServer();
  const grpc = createGrpcServer({ agents: [{ path, handler }], ...traced });
  await grpc.listen({ port: 0, host: '127.0.0.1' });
  const http = createNodeServer({
    agents: [{ path, handler, bindings: [], interfaces: grpc.interfacesOf(path) }],
    ...traced,
  });
  const { url } = await http.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `${url.replace(/\/$/, '')}${path}`,
    close: async () => {
      await Promise.all([
        http.shutdown({ deadlineMs: 1_000 }),
        grpc.shutdown({ deadlineMs: 1_000 }),
      ]);
    },
  };
}

describe.each<Binding>(['JSONRPC', 'GRPC'])('over %s', (binding) => {
  const servers: Served[] = [];
  let client: A2AClient;

  beforeAll(async () => {
    const peer =
      binding === 'GRPC'
        ? await serveOverGrpcOnly(peerAgent, 'echo')
        : await serveOne(peerAgent, 'echo');
    servers.push(peer);
    const orchestrator = createOrchestratorAgent({
      peers: [peer.url],
      cardResolver: createCardResolver(),
    });
    const main = await serveOne(
      { ...orchestrator, card: { ...orchestrator.card, name: ORCHESTRATOR } },
      'orchestrator',
    );
    servers.push(main);
    client = await createClient(main.url, {
      cardResolver: createCardResolver(),
      bindings: [binding],
    });
    return () => Promise.all(servers.map((served) => served.close()));
  });

  it('is one trace from the caller to the peer’s own span, each span the child of the one before', async () => {
    recorder.reset();
    const answer = await trace
      .getTracer('caller')
      .startActiveSpan('caller.work', { root: true }, async (span) => {
        try {
          return (await client.send('echo hello')) as Task;
        } finally {
          span.end();
        }
      });
    expect(answer.status.state).toBe('TASK_STATE_COMPLETED');

    const root = await recorder.waitFor((s) => s.name === 'caller.work', 'the caller’s span');
    // The client sends the message as a stream when the agent streams; either way one span.
    const clientSpan = await recorder.waitFor(
      tandemSpan(SpanKind.CLIENT, ORCHESTRATOR),
      'the client’s CLIENT span to the orchestrator',
    );
    const orchestratorSpan = await recorder.waitFor(
      tandemSpan(SpanKind.SERVER, ORCHESTRATOR),
      'the orchestrator’s SERVER span',
    );
    expect(orchestratorSpan.name).toBe(clientSpan.name);
    // The orchestrator relays the peer's stream, or sends it one message: either is a CLIENT span.
    const toPeer = await recorder.waitFor(
      tandemSpan(SpanKind.CLIENT, PEER),
      'the orchestrator’s CLIENT span to the peer',
    );
    const peerSpan = await recorder.waitFor(
      tandemSpan(SpanKind.SERVER, PEER),
      'the peer’s SERVER span',
    );
    const tool = await recorder.waitFor((s) => s.name === 'tool.lookup', 'the peer agent’s span');

    const traceId = root.spanContext().traceId;
    for (const span of [clientSpan, orchestratorSpan, toPeer, peerSpan, tool]) {
      expect(span.spanContext().traceId, span.name).toBe(traceId);
    }
    expect(parentOf(clientSpan)).toBe(root.spanContext().spanId);
    expect(parentOf(orchestratorSpan)).toBe(clientSpan.spanContext().spanId);
    expect(parentOf(toPeer)).toBe(orchestratorSpan.spanContext().spanId);
    expect(toPeer.name).toBe(peerSpan.name);
    expect(parentOf(peerSpan)).toBe(toPeer.spanContext().spanId);
    expect(parentOf(tool)).toBe(peerSpan.spanContext().spanId);
    // Over the binding of the block, at each hop.
    for (const span of [clientSpan, orchestratorSpan, toPeer, peerSpan]) {
      expect(['SendMessage', 'SendStreamingMessage']).toContain(span.name);
      expect(span.attributes['a2a.protocol.binding'], span.name).toBe(binding);
    }
    // Nothing of the chain started a trace of its own.
    const strays = recorder
      .spans()
      .filter(
        (s) => s.instrumentationScope.name === 'tandem' && s.spanContext().traceId !== traceId,
      );
    expect(strays.map((s) => s.name)).toEqual([]);
  });
});
