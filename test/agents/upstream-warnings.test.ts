/**
 * The warn lines of the agents that call out, read from a real pino logger: the chat agent
 * against a model server on loopback that fails (HTTP 500, a refused port, silence until the
 * timeout), and the orchestrator against peers that cannot be used (a refused port, a card that
 * is invalid, a card that never comes, an interface that refuses connections) and a routing
 * model that fails. Each line carries the task id and the reason; none carries the API key, the
 * caller's message, the model's text or a peer URL's query.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardResolver, createClient, type A2AClient, type Task } from '../../src/client.js';
import {
  createLogger,
  createNodeServer,
  createRequestHandler,
  type A2ANodeServer,
  type Logger,
} from '../../src/server.js';
import { createChatAgent } from '../../src/agents/chat/chat-agent.js';
import { resolveChatConfig } from '../../src/agents/chat/chat-config.js';
import { startFakeModelServer, type FakeModelServer } from './chat/fake-model-server.js';
import { orchestrator, startDemoPeers, textOf } from './orchestrator/orchestrator-harness.js';

const KEY = 'sk-warn-test-0123456789abcdef';
const PEER_SECRET = 'peer-query-secret-42';

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly taskId?: string;
  readonly reason?: string;
  readonly peerUrl?: string;
  readonly [key: string]: unknown;
}

/** A pino logger whose JSON lines are kept, parsed. pino writes to the stream synchronously. */
function capturedLogger(): { logger: Logger; lines: LogLine[]; raw: string[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  });
  return { logger, lines, raw };
}

const WARN = 40;

function reasonOf(task: Task): string {
  return textOf(task.status.message);
}

/** A bare HTTP server on loopback; `handle` answers every request. */
async function bareServer(handle: Parameters<typeof createServer>[1]): Promise<{
  url: string;
  server: Server;
}> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A loopback URL where nothing listens (a port that was just freed). */
async function refusedUrl(): Promise<string> {
  const { url, server } = await bareServer(() => undefined);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return url;
}

const bare: Server[] = [];
afterAll(async () => {
  await Promise.all(
    bare.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  );
});

describe('the chat agent’s warn lines', () => {
  let model: FakeModelServer;
  let node: A2ANodeServer;
  const log = capturedLogger();
  const clients = new Map<string, A2AClient>();

  beforeAll(async () => {
    model = await startFakeModelServer();
    const down = await refusedUrl();
    const mount = (path: string, modelUrl: string, timeoutMs = 5_000) => ({
      path,
      handler: createRequestHandler({
        agent: createChatAgent(resolveChatConfig({ model: 'm', modelUrl, timeoutMs }), {
          apiKey: KEY,
          logger: log.logger,
        }),
        agentName: path,
      }),
    });
    node = createNodeServer({
      agents: [
        mount('/chat', model.baseUrl),
        mount('/quick', model.baseUrl, 200),
        mount('/down', `${down}/v1`),
      ],
    });
    const base = (await node.listen({ port: 0, host: '127.0.0.1' })).url.replace(/\/$/, '');
    for (const path of ['/chat', '/quick', '/down']) {
      clients.set(
        path,
        await createClient(`${base}${path}`, { cardResolver: createCardResolver() }),
      );
    }
  });

  afterAll(async () => {
    await node.shutdown({ deadlineMs: 1_000 });
    await model.close();
  });

  const cases: [string, string, string, RegExp][] = [
    ['an HTTP 500', '/chat', 'status 500', /^The model server failed \(HTTP 500\)$/],
    [
      'a refused connection',
      '/down',
      'hello secret question',
      /^The model server refused the connection/,
    ],
    ['silence until the timeout', '/quick', 'hang', /did not answer within 0.2s$/],
    ['a stop mid-answer', '/quick', 'gate', /stopped sending for 0.2s in the middle/],
  ];

  it.each(cases)(
    'logs %s at warn with the task id and the reason',
    async (_, path, text, reason) => {
      const before = log.lines.length;
      const task = (await clients.get(path)?.send(text)) as Task;
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      const warns = log.lines.slice(before).filter((l) => l.level === WARN);
      expect(warns).toHaveLength(1);
      const line = warns[0] as LogLine;
      expect(line.taskId).toBe(task.id);
      expect(line.reason).toMatch(reason);
      // The same reason the task's client got.
      expect(line.reason).toBe(reasonOf(task));
      const written = log.raw.slice(before).join('');
      // Neither the key (the 500 body echoes it), the caller's message, nor the model's text.
      for (const secret of [KEY, 'sk-abcdefghijklmnop', text, 'first ', '10.0.0.7']) {
        expect(written).not.toContain(secret);
      }
    },
  );
});

describe('the orchestrator’s warn lines', () => {
  let demo: Awaited<ReturnType<typeof startDemoPeers>>;
  let refused: string;
  let invalidCard: string;
  let silentCard: string;
  let deadInterface: string;

  beforeAll(async () => {
    demo = await startDemoPeers();
    refused = `${await refusedUrl()}/agents/dice?token=${PEER_SECRET}`;
    const invalid = await bareServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'Broken',
          description: 'A card with a defect',
          version: '1.0.0',
          supportedInterfaces: [
            { url: 'http://127.0.0.1:1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          ],
          capabilities: {},
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: 'none',
        }),
      );
    });
    bare.push(invalid.server);
    invalidCard = `${invalid.url}/agents/broken`;
    // Answers no card request: the fetch runs into the orchestrator's time limit.
    const silent = await bareServer(() => undefined);
    bare.push(silent.server);
    silentCard = `${silent.url}/agents/silent`;
    // Dice's card, with its interface moved to a port where nothing listens.
    const diceCard = (await (await fetch(`${demo.dice}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string }[];
    };
    const gone = await refusedUrl();
    for (const entry of diceCard.supportedInterfaces) {
      entry.url = entry.url.replace(/^http:\/\/[^/]+/, gone);
    }
    const moved = await bareServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(diceCard));
    });
    bare.push(moved.server);
    deadInterface = `${moved.url}/agents/dice`;
  });

  it('fails the task when no peer can be used, naming each card problem, and warns for each', async () => {
    const log = capturedLogger();
    const client = await orchestrator({
      peers: [refused, invalidCard, silentCard],
      // Long enough for the retries of the refused port (at most 600 ms of backoff), short
      // enough for the silent card to run into it.
      timeoutMs: 1_500,
      logger: log.logger,
    });
    const task = (await client.send('roll 2d6')) as Task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    const reason = reasonOf(task);
    expect(reason).toMatch(/^No agent I delegate to can be used: /);
    expect(reason).toContain('peer 1 could not be reached (the connection was refused)');
    expect(reason).toContain(
      'the agent card of peer 2 is invalid (skills: must be an array, got "none")',
    );
    expect(reason).not.toContain('peer 2 could not be reached');
    expect(reason).toContain('peer 3 did not send its agent card in time');
    expect(JSON.stringify(task)).not.toContain('127.0.0.1');

    const warns = log.lines.filter((l) => l.level === WARN);
    expect(warns.map((l) => l.taskId)).toEqual([task.id, task.id, task.id]);
    expect(warns.map((l) => l.reason)).toEqual([
      expect.stringContaining('could not be reached'),
      expect.stringContaining('is invalid (skills:'),
      expect.stringContaining('in time'),
    ]);
    // The operator gets the URL, without the query that may hold a credential.
    expect(warns[0]?.peerUrl).toBe(refused.replace(/\?.*$/, ''));
    const written = log.raw.join('');
    expect(written).not.toContain(PEER_SECRET);
    expect(written).not.toContain('roll 2d6');
    expect(written).not.toContain('caller-secret-token');
  });

  it('warns for a peer left out of routing while another answers', async () => {
    const log = capturedLogger();
    const client = await orchestrator({ peers: [invalidCard, demo.dice], logger: log.logger });
    const task = (await client.send('roll 2d6')) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const warns = log.lines.filter((l) => l.level === WARN);
    expect(warns).toHaveLength(1);
    expect(warns[0]?.taskId).toBe(task.id);
    expect(warns[0]?.reason).toContain('the agent card of peer 1 is invalid');
  });

  it('warns when the chosen peer refuses the call, and fails the task with the reason', async () => {
    const log = capturedLogger();
    const client = await orchestrator({ peers: [deadInterface], logger: log.logger });
    const task = (await client.send('roll 2d6')) as Task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(reasonOf(task)).toBe('Dice could not be reached');
    const warns = log.lines.filter((l) => l.level === WARN);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({ taskId: task.id, reason: 'Dice could not be reached' });
  });

  it('warns when the routing model fails, and routes by score', async () => {
    const log = capturedLogger();
    const model = await startFakeModelServer();
    const down = model.baseUrl;
    await model.close();
    const client = await orchestrator({
      peers: [demo.dice],
      logger: log.logger,
      routingModel: {
        baseUrl: down,
        model: 'router',
        apiKey: KEY,
        temperature: undefined,
        maxTokens: undefined,
        stream: false,
        timeoutMs: 2_000,
      },
    });
    const task = (await client.send('roll 2d6')) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const warns = log.lines.filter((l) => l.level === WARN);
    expect(warns).toHaveLength(1);
    expect(warns[0]?.taskId).toBe(task.id);
    expect(warns[0]?.reason).toMatch(/^The model server refused the connection/);
    expect(log.raw.join('')).not.toContain(KEY);
  });
});
