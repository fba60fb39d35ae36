/**
 * `createA2AServer`: one agent over all three bindings from one call, 0.3 on every one of them,
 * with cards — served over HTTP, answered over gRPC — that list each other; one server
 * interceptor that sees every operation whichever door it came through, 0.3 doors included, with
 * a stream's end and a client-side cancel; the limits counted once across bindings; and a clean
 * shutdown with streams open on HTTP and gRPC.
 */

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type A2AClient } from '../../src/client.js';
import { ConfigurationError, type AgentCard, type AgentInterface } from '../../src/index.js';
import {
  createA2AServer,
  createRequestHandler,
  type A2AServer,
  type A2AServerAddress,
} from '../../src/server.js';
import { compatV03 } from '../../src/server-compat.js';
import { clientTestAgent } from '../support/agents.js';
import { TAG_HEADER, type A2ADriver } from '../support/drivers/a2a-driver.js';
import { connectDriver } from '../support/drivers/bindings.js';
import { send } from '../support/messages.js';
import { RecordingInterceptor } from '../support/recording-interceptor.js';

const recorder = new RecordingInterceptor();
let server: A2AServer;
let address: A2AServerAddress;
let base: string;
let card: AgentCard;
let drivers: Record<'jsonrpc' | 'rest' | 'grpc', A2ADriver>;
let tags = 0;
const tagged = (name: string) => ({ tag: `${name}-${tags++}` });

beforeAll(async () => {
  server = createA2AServer({
    agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
    http: { heartbeatMs: 0 },
    grpc: {},
    compat: compatV03(),
    interceptors: [recorder.interceptor],
    limits: { requestsPerMinute: 1_000 },
  });
  address = await server.listen();
  base = address.http?.url ?? '';
  card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as AgentCard;
  drivers = {
    jsonrpc: await connectDriver('jsonrpc', base),
    rest: await connectDriver('rest', base),
    grpc: await connectDriver('grpc', base),
  };
});

afterAll(async () => {
  await server.shutdown({ deadlineMs: 500 });
});

const summary = (interfaces: readonly AgentInterface[]) =>
  interfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`);

/** A client of the agent's 0.3 interface of `binding`, tagging each call. */
function v03Client(binding: string, tag: string): Promise<A2AClient> {
  return createClient(base, {
    card: {
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter(
        (i) => i.protocolVersion === '0.3' && i.protocolBinding === binding,
      ),
    },
    headers: { [TAG_HEADER]: tag },
  });
}

describe('createA2AServer', () => {
  it('serves the agent on every binding, its card listing every interface', () => {
    const grpc = address.grpc?.address ?? '';
    expect(summary(card.supportedInterfaces)).toEqual([
      `JSONRPC 1.0 ${base}/a2a`,
      `JSONRPC 0.3 ${base}/a2a`,
      `HTTP+JSON 1.0 ${base}`,
      `HTTP+JSON 0.3 ${base}`,
      `GRPC 1.0 ${grpc}`,
      `GRPC 0.3 ${grpc}`,
    ]);
    expect(summary(server.interfacesOf(''))).toEqual(summary(card.supportedInterfaces));
  });

  it('answers the extended card with the same interfaces over gRPC as over HTTP', async () => {
    const overGrpc = await drivers.grpc.getExtendedAgentCard({});
    const overHttp = await drivers.jsonrpc.getExtendedAgentCard({});
    expect(summary(overGrpc.supportedInterfaces)).toEqual(summary(card.supportedInterfaces));
    expect(summary(overHttp.supportedInterfaces)).toEqual(summary(card.supportedInterfaces));
  });

  it('runs one task through every binding', async () => {
    const task = await drivers.grpc.sendTask(send('ask'));
    expect((await drivers.rest.getTask({ id: task.id })).status.state).toBe(
      'TASK_STATE_INPUT_REQUIRED',
    );
    const done = await drivers.jsonrpc.sendTask(send('Ada', { taskId: task.id }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses options that serve no listener', () => {
    expect(() =>
      createA2AServer({
        agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
      }),
    ).toThrow(ConfigurationError);
  });
});

describe('a server interceptor on createA2AServer', () => {
  it.each([
    ['jsonrpc', 'JSONRPC'],
    ['rest', 'HTTP+JSON'],
    ['grpc', 'GRPC'],
  ] as const)('sees a call over %s, 1.0', async (name, binding) => {
    const options = tagged(name);
    await drivers[name].sendTask(send('echo x'), options);
    expect(await recorder.ended(options.tag)).toMatchObject({
      operation: 'SendMessage',
      binding,
      compatVersion: undefined,
      protocolVersion: '1.0',
      outcome: 'answered',
    });
  });

  it.each([['JSONRPC'], ['HTTP+JSON'], ['GRPC']])(
    'sees the calls of a 0.3 door of %s as the 1.0 operations they are, streams to their end',
    async (binding) => {
      const unary = tagged(`v03-${binding}`);
      await (
        await v03Client(binding, unary.tag)
      ).sendMessage({ message: { parts: [{ text: 'echo y' }] } });
      expect(await recorder.ended(unary.tag)).toMatchObject({
        operation: 'SendMessage',
        binding,
        compatVersion: '0.3',
        protocolVersion: '0.3',
        outcome: 'answered',
      });
      const streamed = tagged(`v03-stream-${binding}`);
      const client = await v03Client(binding, streamed.tag);
      const events = [];
      for await (const event of client.sendStreamingMessage({
        message: { parts: [{ text: 'stream 2' }] },
      })) {
        events.push(event);
      }
      const record = await recorder.ended(streamed.tag);
      expect(record).toMatchObject({
        operation: 'SendStreamingMessage',
        binding,
        compatVersion: '0.3',
        outcome: 'completed',
      });
      expect(record.events.length).toBe(events.length);
    },
  );

  it.each([['jsonrpc'], ['grpc']] as const)('sees a client cancel its %s stream', async (name) => {
    const options = tagged(`cancel-${name}`);
    const stream = await drivers[name].sendStreamingMessage(send('wait'), options);
    const [first] = await stream.take(1);
    stream.close();
    expect((await recorder.ended(options.tag)).outcome).toBe('canceled');
    await drivers.rest.cancelTask({ id: first?.response.task?.id ?? '' });
  });
});

describe('the limits of createA2AServer', () => {
  it('count a caller once across bindings', async () => {
    const limited = createA2AServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
      http: {},
      grpc: {},
      limits: { requestsPerMinute: 2 },
    });
    const { http } = await limited.listen();
    try {
      const grpc = await connectDriver('grpc', http?.url ?? '');
      const rest = await connectDriver('rest', http?.url ?? '');
      await grpc.listTasks();
      await rest.listTasks();
      await expect(grpc.listTasks()).rejects.toMatchObject({ status: 'RESOURCE_EXHAUSTED' });
      await expect(rest.listTasks()).rejects.toMatchObject({ status: 'RESOURCE_EXHAUSTED' });
    } finally {
      await limited.shutdown({ deadlineMs: 500 });
    }
  });
});

describe('createA2AServer shutdown', () => {
  it('ends the open streams of every listener, cancels their tasks and closes both ports', async () => {
    const closing = createA2AServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
      http: { heartbeatMs: 0 },
      grpc: {},
    });
    const { http, grpc } = await closing.listen();
    const overHttp = await connectDriver('jsonrpc', http?.url ?? '');
    const overGrpc = await connectDriver('grpc', http?.url ?? '');
    const streams = await Promise.all([
      overHttp.sendStreamingMessage(send('wait')),
      overGrpc.sendStreamingMessage(send('wait')),
    ]);
    await Promise.all(streams.map((stream) => stream.take(2)));
    await closing.shutdown({ deadlineMs: 200 });
    for (const stream of streams) {
      const rest = await stream.rest();
      expect(rest.at(-1)?.response.statusUpdate?.status.state).toBe('TASK_STATE_CANCELED');
    }
    for (const port of [http?.port, grpc?.port]) {
      await expect(
        new Promise((resolve, reject) => {
          const socket = connect(port ?? 0, '127.0.0.1', () => resolve(socket.destroy()));
          socket.on('error', reject);
        }),
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    }
  });
});
