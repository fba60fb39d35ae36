/**
 * gRPC 0.3 with several agents on one port: as a 1.0 call is routed by its `tenant`, a 0.3 call
 * (whose messages have no tenant field) is routed by the `a2a-tenant` metadata that Tandem's 0.3
 * client sends from the interface's tenant; a 0.3 client that sends none (the official SDK's)
 * reaches the first agent, as before. Each agent's card lists its 0.3 GRPC interface with its
 * tenant, and Tandem's client, given only that interface, reaches that agent — its tasks, its
 * extended card — and not the other.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTransport } from 'a2a-sdk-v03/client/grpc';
import type { Message as V03Message } from 'a2a-sdk-v03';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import { createClient, TaskNotFoundError, type A2AClient } from '../../../src/client.js';
import type { AgentCard } from '../../../src/index.js';
import {
  createA2AServer,
  createRequestHandler,
  createTaskRuntime,
  defineAgent,
  type A2AServer,
  type TaskRuntime,
} from '../../../src/server.js';
import { MemoryTaskStore } from '../../../src/stores.js';
import { compatV03 } from '../../../src/server-compat.js';

/** An agent that answers with its own name, and declares an extended card named after it. */
function namedAgent(name: string) {
  return defineAgent({
    card: {
      name,
      description: `The ${name} agent`,
      skills: [{ id: 'name', name: 'Name', description: 'Says its name', tags: ['test'] }],
    },
    extendedCard: {
      name: `${name} (extended)`,
      description: 'The extended card',
      skills: [{ id: 'x', name: 'X', description: 'Extended', tags: ['x'] }],
    },
    async execute(ctx) {
      await ctx.artifact(`I am ${name}`);
      return ctx.complete();
    },
  });
}

let runtime: TaskRuntime;
let server: A2AServer;
let base: string;
let grpcAddress: string;
const clients = new Map<string, A2AClient>();

/** The client of an agent, given only the 0.3 GRPC interface of its card. */
async function v03GrpcClient(name: string): Promise<A2AClient> {
  const served = (await (
    await fetch(`${base}/agents/${name}/.well-known/agent-card.json`)
  ).json()) as AgentCard;
  const grpc = served.supportedInterfaces.filter(
    (i) => i.protocolVersion === '0.3' && i.protocolBinding === 'GRPC',
  );
  expect(grpc.map((i) => i.tenant)).toEqual([`agents/${name}`]);
  return createClient(`${base}/agents/${name}`, {
    card: { ...served, supportedInterfaces: grpc },
  });
}

beforeAll(async () => {
  runtime = createTaskRuntime({ store: new MemoryTaskStore() });
  await runtime.start();
  server = createA2AServer({
    agents: ['first', 'second'].map((name) => ({
      path: `/agents/${name}`,
      handler: createRequestHandler({ agent: namedAgent(name), runtime }),
    })),
    http: { heartbeatMs: 0 },
    grpc: {},
    compat: compatV03(),
  });
  const address = await server.listen();
  base = (address.http?.url ?? '').replace(/\/$/, '');
  grpcAddress = address.grpc?.address ?? '';
  for (const name of ['first', 'second']) clients.set(name, await v03GrpcClient(name));
});

afterAll(async () => {
  await server?.shutdown({ deadlineMs: 500 });
  await runtime?.close();
});

function client(name: string): A2AClient {
  const found = clients.get(name);
  if (found === undefined) throw new Error(`no client for ${name}`);
  return found;
}

function message(text: string): V03Message {
  return {
    kind: 'message',
    role: 'user',
    messageId: crypto.randomUUID(),
    parts: [{ kind: 'text', text }],
  };
}

describe('gRPC 0.3 with two agents on one port', () => {
  it.each(['first', 'second'])(
    'routes a 0.3 call to the %s agent, as its interface names it',
    async (name) => {
      const sent = await client(name).sendMessage({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      });
      expect(sent.task?.artifacts?.[0]?.parts).toEqual([{ text: `I am ${name}` }]);
      const extended = await client(name).getExtendedAgentCard();
      expect(extended.name).toBe(`${name} (extended)`);
    },
  );

  it("keeps each agent's tasks to it: the other agent's 0.3 interface does not find them", async () => {
    const sent = await client('second').sendMessage({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    const id = sent.task?.id ?? '';
    expect((await client('second').getTask({ id })).id).toBe(id);
    await expect(client('first').getTask({ id })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('sends a 0.3 call without the metadata (the official SDK) to the first agent', async () => {
    const sdk = new GrpcTransport({ endpoint: grpcAddress });
    const task = await sdk.sendMessage({
      message: message('hi'),
      configuration: { blocking: true },
    });
    expect(task).toMatchObject({
      kind: 'task',
      artifacts: [{ parts: [{ kind: 'text', text: 'I am first' }] }],
    });
  });

  it('refuses a 0.3 call naming a tenant no agent is served under, naming the field', async () => {
    // The SDK's transport takes no metadata per call: a raw 0.3 call over grpc-js carries it.
    const raw = new Client(grpcAddress, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('a2a-tenant', 'agents/nobody');
    const error = await new Promise<{ code: number; details: string }>((resolve) => {
      raw.makeUnaryRequest(
        '/a2a.v1.A2AService/GetAgentCard',
        (value: Buffer) => value,
        (value: Buffer) => value,
        Buffer.alloc(0),
        metadata,
        (failure) => resolve(failure as unknown as { code: number; details: string }),
      );
    });
    raw.close();
    expect(error.code).toBe(3); // INVALID_ARGUMENT
    expect(error.details).toMatch(/tenant "agents\/nobody"/);
  });
});
