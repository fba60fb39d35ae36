/**
 * A server that speaks only A2A 0.3: the official JS SDK's last 0.3 release (`a2a-sdk-v03`),
 * built as its samples build one — an `AgentExecutor` publishing to the event bus, a
 * `DefaultRequestHandler`, `A2AExpressApp` — with its 0.3 card at `/.well-known/agent-card.json`
 * and at `/legacy/.well-known/agent.json`; and the SDK's HTTP+JSON handler (`restHandler`) at
 * `/rest`, with a card that lists only that interface at `/rest-only/.well-known/agent-card.json`;
 * on request (`{ grpc: true }`) the SDK's gRPC service (`a2a-sdk-v03/server/grpc`) on a port of
 * its own, with a card that lists only it at `/grpc-only/.well-known/agent-card.json`.
 * Shared by the client and CLI tests.
 */

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import type { AgentCard as V03Card, Message as V03Message } from 'a2a-sdk-v03';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from 'a2a-sdk-v03/server';
import { A2AExpressApp, restHandler, UserBuilder } from 'a2a-sdk-v03/server/express';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `reply <s>`: a message; `ask`: input-required; `wait`: works until canceled; else 3 chunks. */
class Executor implements AgentExecutor {
  readonly #canceled = new Set<string>();

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = context.userMessage.parts
      .map((part) => (part.kind === 'text' ? part.text : ''))
      .join('');
    const { taskId, contextId } = context;
    if (text.startsWith('reply ')) {
      const reply: V03Message = {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'agent',
        contextId,
        parts: [{ kind: 'text', text: text.slice(6) }],
      };
      bus.publish(reply);
      bus.finished();
      return;
    }
    if (context.task === undefined) {
      bus.publish({
        kind: 'task',
        id: taskId,
        contextId,
        status: { state: 'submitted', timestamp: new Date().toISOString() },
        history: [context.userMessage],
      });
    }
    const status = (
      state: 'working' | 'completed' | 'canceled' | 'input-required',
      final: boolean,
    ) =>
      bus.publish({
        kind: 'status-update',
        taskId,
        contextId,
        final,
        status: { state, timestamp: new Date().toISOString() },
      });
    if (context.task !== undefined) {
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: { artifactId: 'answer', parts: [{ kind: 'text', text: `Hello, ${text}` }] },
      });
      status('completed', true);
      bus.finished();
      return;
    }
    if (text === 'ask') {
      status('input-required', true);
      bus.finished();
      return;
    }
    status('working', false);
    if (text === 'wait') {
      while (!this.#canceled.has(taskId)) await sleep(5);
      status('canceled', true);
      bus.finished();
      return;
    }
    for (let i = 0; i < 3; i++) {
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        append: i > 0,
        lastChunk: i === 2,
        artifact: {
          artifactId: 'chunks',
          parts: [
            i === 1 ? { kind: 'data', data: { n: i } } : { kind: 'text', text: `chunk-${i}` },
          ],
        },
      });
      await sleep(2);
    }
    status('completed', true);
    bus.finished();
  }

  cancelTask(taskId: string): Promise<void> {
    this.#canceled.add(taskId);
    return Promise.resolve();
  }
}

/** A running 0.3 server. */
export interface SdkV03Server {
  readonly url: string;
  /** The `host:port` of the SDK's gRPC server, when started. */
  readonly grpcAddress?: string;
  close(): Promise<void>;
}

/** Starts the SDK's gRPC service for `handler` on a loopback port. */
async function startSdkGrpc(
  handler: DefaultRequestHandler,
): Promise<{ address: string; close: () => void }> {
  const { Server, ServerCredentials } = await import('@grpc/grpc-js');
  const sdk = await import('a2a-sdk-v03/server/grpc');
  const server = new Server();
  server.addService(
    sdk.A2AService,
    sdk.grpcService({ requestHandler: handler, userBuilder: sdk.UserBuilder.noAuthentication }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => {
      if (error === null) resolve(bound);
      else reject(error);
    });
  });
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

/** Starts the SDK's 0.3 server on a loopback port (and its gRPC server, if asked). */
export async function startSdkV03Server(
  options: { readonly grpc?: boolean } = {},
): Promise<SdkV03Server> {
  const app = express();
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: V03Card = {
    protocolVersion: '0.3.0',
    name: 'SDK 0.3 agent',
    description: 'The official JS SDK 0.3 serving a test executor',
    url: `${base}/a2a`,
    preferredTransport: 'JSONRPC',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'test', name: 'Test', description: 'Test commands', tags: ['test'] }],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new Executor());
  new A2AExpressApp(handler).setupRoutes(app, '/a2a');
  app.use(
    '/rest',
    restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  // The SDK serves its card below the JSON-RPC path; agents put it at the root too.
  app.get('/.well-known/agent-card.json', (_req, res) => void res.json(card));
  app.get('/legacy/.well-known/agent.json', (_req, res) => void res.json(card));
  const restCard: V03Card = { ...card, url: `${base}/rest`, preferredTransport: 'HTTP+JSON' };
  app.get('/rest-only/.well-known/agent-card.json', (_req, res) => void res.json(restCard));
  const grpc = options.grpc === true ? await startSdkGrpc(handler) : undefined;
  if (grpc !== undefined) {
    // A 0.3 card writes a gRPC interface's url as the bare host:port.
    const grpcCard: V03Card = { ...card, url: grpc.address, preferredTransport: 'GRPC' };
    app.get('/grpc-only/.well-known/agent-card.json', (_req, res) => void res.json(grpcCard));
  }
  return {
    url: base,
    ...(grpc === undefined ? {} : { grpcAddress: grpc.address }),
    close: async () => {
      grpc?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
