/**
 * The orchestrator and its peers' availability and cards (an unreachable peer, a stale card read
 * again once), routing by a model, a question's peer task across a restart on SQLite, and each
 * way a peer can end its task.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createCardResolver,
  createClient,
  type A2AClient,
  type Message,
  type Task,
} from '../../../src/client.js';
import { InvalidParamsError } from '../../../src/index.js';
import {
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  defineAgent,
} from '../../../src/server.js';
import { openTaskStore, parseTaskStoreSpec } from '../../../src/stores.js';
import { dice } from '../../../src/agents/dice.js';
import { createOrchestratorAgent } from '../../../src/agents/orchestrator/orchestrator-agent.js';
import {
  PEER_TASK_KEY,
  type PeerTaskRef,
} from '../../../src/agents/orchestrator/peer-delegation.js';
import { tempDir } from '../../support/stores.js';
import { startFakeModelServer } from '../chat/fake-model-server.js';
import {
  answerOf,
  clientOf,
  collect,
  orchestrator,
  serve,
  startDemoPeers,
  textOf,
} from './orchestrator-harness.js';

let peers: Awaited<ReturnType<typeof startDemoPeers>>;

beforeAll(async () => {
  peers = await startDemoPeers();
});

describe('the orchestrator’s peers', () => {
  let proxy: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) =>
      proxy === undefined ? resolve() : proxy.close(() => resolve()),
    );
    proxy = undefined;
  });

  /** Serves whatever card `source()` gives, cacheable for an hour; counts its fetches. */
  async function cardProxy(source: () => string): Promise<{ url: string; fetches: () => number }> {
    let fetches = 0;
    proxy = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, {
        'content-type': 'application/json',
        'cache-control': 'public, max-age=3600',
      });
      res.end(source());
    });
    await new Promise<void>((resolve) => proxy?.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/dice/.well-known/agent-card.json`,
      fetches: () => fetches,
    };
  }

  async function cardOf(base: string): Promise<string> {
    return (await fetch(`${base}/agents/dice/.well-known/agent-card.json`)).text();
  }

  it('routes around an unreachable peer, and says so when nothing fits', async () => {
    const gone = await serve({ dice });
    await gone.node.shutdown({ deadlineMs: 1_000 });
    const client = await orchestrator({ peers: [`${gone.url}/agents/dice`, peers.translator] });
    const translated = (await client.send('translate Thank you')) as Task;
    expect(translated.status.state).toBe('TASK_STATE_COMPLETED');
    const answer = textOf((await client.send('roll 2d6')) as Message);
    expect(answer).toContain('- Translator:');
    expect(answer).toContain('(1 more agent could not be reached.)');
  });

  it('fails the step with the reason when the chosen peer is unreachable', async () => {
    const gone = await serve({ dice });
    const card = await cardOf(gone.url);
    await gone.node.shutdown({ deadlineMs: 1_000 });
    const served = await cardProxy(() => card);
    const client = await orchestrator({ peers: [served.url] });
    const task = (await client.send('roll 2d6')) as Task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(textOf(task.status.message)).toBe('Dice could not be reached');
    expect(JSON.stringify(task)).not.toContain('127.0.0.1');
    // The card was read again once (it might have moved), not more.
    expect(served.fetches()).toBe(2);
  });

  it('reads a stale card again once, and retries on the fresh one', async () => {
    const first = await serve({ dice });
    let card = await cardOf(first.url);
    const served = await cardProxy(() => card);
    const client = await orchestrator({ peers: [served.url] });
    expect(((await client.send('roll 1d6')) as Task).status.state).toBe('TASK_STATE_COMPLETED');
    expect(served.fetches()).toBe(1);

    // The peer moves: its old interface is gone, its card (cached for an hour) says otherwise.
    await first.node.shutdown({ deadlineMs: 1_000 });
    const second = await serve({ dice });
    card = await cardOf(second.url);
    const moved = (await client.send('roll 1d6')) as Task;
    expect(moved.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(moved)).toMatch(/^Rolled 1d6: [1-6]$/);
    expect(served.fetches()).toBe(2);
  });
});

describe('the orchestrator with a routing model', () => {
  it('lets the model pick the skill, and scores the skills when its answer is unusable', async () => {
    const model = await startFakeModelServer();
    try {
      const client = await orchestrator({
        peers: [peers.dice, peers.translator],
        routingModel: {
          baseUrl: model.baseUrl,
          model: 'router',
          apiKey: 'sk-router-key-123456',
          temperature: undefined,
          maxTokens: undefined,
          stream: true,
          timeoutMs: 5_000,
        },
      });
      // Skill 2 is the translator's, although the words say nothing of translating.
      const picked = (await client.send('Thank you very much. #2')) as Task;
      expect(picked.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answerOf(picked)).toMatch(/\p{Script=Han}/u);
      const asked = model.requests.at(-1);
      expect(asked?.headers.authorization).toBe('Bearer sk-router-key-123456');
      expect(asked?.body.stream).toBe(false);
      expect(JSON.stringify(asked?.body.messages)).toContain('1. Dice / Roll dice');
      expect(JSON.stringify(asked?.body.messages)).toContain(
        '2. Translator / English to Simplified Chinese',
      );
      // 0: the model says nothing fits, although the words would have chosen the dice.
      expect('status' in (await client.send('roll 2d6 #0'))).toBe(false);
      // No number: the score decides.
      const scored = (await client.send('roll 2d6')) as Task;
      expect(answerOf(scored)).toMatch(/^Rolled 2d6: /);
    } finally {
      await model.close();
    }
    // A model that is gone: the score decides.
    const client = await orchestrator({
      peers: [peers.dice],
      routingModel: {
        baseUrl: model.baseUrl,
        model: 'router',
        apiKey: undefined,
        temperature: undefined,
        maxTokens: undefined,
        stream: true,
        timeoutMs: 5_000,
      },
    });
    expect(answerOf((await client.send('roll 2d6')) as Task)).toMatch(/^Rolled 2d6: /);
  });
});

describe('the orchestrator across a restart', () => {
  it('sends the answer to the peer task it asked for, from the stored question', async () => {
    const dir = await tempDir();
    const spec = parseTaskStoreSpec(`sqlite:${join(dir.path, 'orchestrator.db')}`);
    const start = async () => {
      const store = await openTaskStore(spec);
      const runtime = createTaskRuntime({ store });
      await runtime.start();
      const agent = createOrchestratorAgent({
        peers: [peers.dice],
        cardResolver: createCardResolver(),
      });
      const node = createNodeServer({
        agents: [{ path: '', handler: createRequestHandler({ agent, runtime, agentName: 'o' }) }],
      });
      const { url } = await node.listen({ port: 0, host: '127.0.0.1' });
      const client = await createClient(url, { cardResolver: createCardResolver() });
      const stop = async () => {
        await node.shutdown({ deadlineMs: 1_000 });
        await runtime.close();
        await store.close();
      };
      return { client, stop };
    };
    try {
      const first = await start();
      const asked = (await first.client.send('roll an apple')) as Task;
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      await first.stop();

      const second = await start();
      const rolled = (await second.client.send('2d4', {
        taskId: asked.id,
        contextId: asked.contextId as string,
      })) as Task;
      expect(rolled.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answerOf(rolled)).toMatch(/^Rolled 2d4: /);
      const ref = asked.status.message?.parts[0]?.metadata?.[
        PEER_TASK_KEY
      ] as unknown as PeerTaskRef;
      const diceClient = await clientOf(peers.dice);
      const peerTask = await diceClient.getTask({ id: ref.taskId });
      expect(peerTask.status.state).toBe('TASK_STATE_COMPLETED');
      await second.stop();
    } finally {
      await dir.remove();
    }
  });
});

describe('the orchestrator relaying how a peer ends', () => {
  const gatekeeper = defineAgent({
    card: {
      name: 'Gatekeeper',
      description: 'Ends its tasks as told',
      skills: [
        { id: 'gate', name: 'Gatekeeper', description: 'Ends as told', tags: ['gatekeeper'] },
      ],
    },
    async execute(ctx) {
      const command = ctx.text.replace(/^gatekeeper /, '');
      if (command === 'refuse') throw new InvalidParamsError('message.parts[0]: not today');
      if (command === 'reply') return ctx.reply('a direct answer');
      if (command === 'progress') {
        await ctx.working('halfway there');
        await ctx.artifact('the result', { name: 'result' });
        return ctx.complete('all done');
      }
      await ctx.working();
      if (command === 'fail') return ctx.fail('no way');
      if (command === 'reject') return ctx.reject('not mine to do');
      if (command === 'auth') return ctx.authRequired('sign in first');
    },
  });
  let client: A2AClient;
  let peerClient: A2AClient;

  beforeAll(async () => {
    const { url } = await serve({ gatekeeper });
    client = await orchestrator({ peers: [`${url}/agents/gatekeeper`] });
    peerClient = await createClient(`${url}/agents/gatekeeper`, {
      cardResolver: createCardResolver(),
    });
  });

  it.each([
    ['fail', 'TASK_STATE_FAILED', 'Gatekeeper failed: no way'],
    ['reject', 'TASK_STATE_REJECTED', 'Gatekeeper declined: not mine to do'],
    ['refuse', 'TASK_STATE_FAILED', 'Gatekeeper refused the request: message.parts[0]: not today'],
    [
      'auth',
      'TASK_STATE_FAILED',
      'Gatekeeper asks for authorization, which the orchestrator does not pass on: sign in first',
    ],
  ])('gatekeeper %s: %s with the reason', async (command, state, reason) => {
    const task = (await client.send(`gatekeeper ${command}`)) as Task;
    expect(task.status.state).toBe(state);
    expect(textOf(task.status.message)).toBe(reason);
  });

  it('cancels a peer task that waits for authorization it will not get', async () => {
    await client.send('gatekeeper auth');
    const listed = await peerClient.listTasks({ pageSize: 1 });
    expect(listed.tasks[0]?.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('relays progress messages, the result and the final message; a direct answer as an artifact', async () => {
    const events = await collect(
      client.sendStreamingMessage({ message: { parts: [{ text: 'gatekeeper progress' }] } }),
    );
    const statuses = events.flatMap((e) =>
      e.statusUpdate === undefined
        ? []
        : [[e.statusUpdate.status.state, textOf(e.statusUpdate.status.message)]],
    );
    expect(statuses).toContainEqual(['TASK_STATE_WORKING', 'halfway there']);
    expect(statuses.at(-1)).toEqual(['TASK_STATE_COMPLETED', 'all done']);
    expect(events.find((e) => e.artifactUpdate !== undefined)?.artifactUpdate?.artifact.name).toBe(
      'result',
    );

    const replied = (await client.send('gatekeeper reply')) as Task;
    expect(replied.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(replied)).toBe('a direct answer');
  });
});
