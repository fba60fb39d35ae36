/**
 * The orchestrator against the real demo agents (dice, translator, echo) on loopback, over real
 * HTTP: routing by skills, the answer when nothing fits, the streaming relay, the input-required
 * round trip to the same peer task, cancel propagation, the caller's credentials kept back, an
 * unreachable peer, and a stale card refreshed once.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createCardResolver,
  createClient,
  type A2AClient,
  type Message,
  type StreamResponse,
  type Task,
} from '../../../src/client.js';
import { join } from 'node:path';
import { InvalidParamsError } from '../../../src/index.js';
import {
  defineAgent,
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  openTaskStore,
  parseTaskStoreSpec,
  type A2ANodeServer,
  type AgentDefinition,
  type Authenticator,
} from '../../../src/server.js';
import { dice } from '../../../src/agents/dice.js';
import { echo } from '../../../src/agents/echo.js';
import { translator } from '../../../src/agents/translator.js';
import {
  CALLER_REFERENCE_KEY,
  createOrchestratorAgent,
  type OrchestratorConfig,
} from '../../../src/agents/orchestrator/orchestrator-agent.js';
import {
  PEER_TASK_KEY,
  type PeerTaskRef,
} from '../../../src/agents/orchestrator/peer-delegation.js';
import { tempDir } from '../../support/stores.js';
import { pollUntil } from '../../support/sync.js';
import { startFakeModelServer } from '../chat/fake-model-server.js';

const servers: A2ANodeServer[] = [];
/** What the peers' server was sent, as its identity hook saw it. */
const peerAuthorization: (string | null | undefined)[] = [];
let peers: { dice: string; translator: string; echo: string };

async function serve(
  agents: Record<string, AgentDefinition>,
  authenticate?: Authenticator,
): Promise<{ url: string; node: A2ANodeServer }> {
  const node = createNodeServer({
    agents: Object.entries(agents).map(([name, agent]) => ({
      path: `/agents/${name}`,
      handler: createRequestHandler({ agent, agentName: name }),
    })),
    ...(authenticate === undefined ? {} : { authenticate }),
  });
  servers.push(node);
  const { url } = await node.listen({ port: 0, host: '127.0.0.1' });
  return { url: url.replace(/\/$/, ''), node };
}

/** An orchestrator of `config.peers`, its client calling with a credential of its own. */
async function orchestrator(
  config: Omit<OrchestratorConfig, 'cardResolver'> &
    Partial<Pick<OrchestratorConfig, 'cardResolver'>>,
): Promise<A2AClient> {
  const agent = createOrchestratorAgent({ cardResolver: createCardResolver(), ...config });
  const { url } = await serve({ orchestrator: agent }, ({ headers }) =>
    headers.get('authorization') === 'Bearer caller-secret-token'
      ? { id: 'alice', anonymous: false }
      : { id: 'anonymous', anonymous: true },
  );
  return createClient(`${url}/agents/orchestrator`, {
    cardResolver: createCardResolver(),
    auth: { bearerToken: 'caller-secret-token' },
  });
}

function answerOf(task: Task): string {
  return (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? '')).join('');
}

function textOf(message: Pick<Message, 'parts'> | undefined): string {
  return message?.parts.map((p) => p.text ?? '').join('') ?? '';
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

let main: A2AClient;

beforeAll(async () => {
  const { url } = await serve({ dice, translator, echo }, ({ headers }) => {
    peerAuthorization.push(headers.get('authorization'));
    return { id: 'orchestrator', anonymous: true };
  });
  peers = {
    dice: `${url}/agents/dice`,
    translator: `${url}/agents/translator`,
    echo: `${url}/agents/echo`,
  };
  main = await orchestrator({
    peers: [peers.dice, peers.translator, peers.echo],
    callerReference: true,
  });
});

afterAll(async () => {
  await Promise.all(servers.map((node) => node.shutdown({ deadlineMs: 1_000 })));
});

describe('the orchestrator', () => {
  it('routes by the skills on the peers’ cards', async () => {
    const roll = (await main.send('roll 2d6')) as Task;
    expect(roll.status.state).toBe('TASK_STATE_COMPLETED');
    expect(roll.artifacts?.[0]?.name).toBe('roll');
    expect(answerOf(roll)).toMatch(/^Rolled 2d6: \d \+ \d = \d+$/);
    expect(roll.artifacts?.[0]?.parts[1]?.data).toMatchObject({ notation: '2d6' });

    const translated = (await main.send('Translate "Good morning" to Chinese')) as Task;
    expect(translated.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(translated)).toMatch(/\p{Script=Han}/u);

    const echoed = (await main.send('echo hello world')) as Task;
    expect(answerOf(echoed)).toBe('hello world');
  });

  it('answers which skills exist when none fits', async () => {
    const answer = await main.send('what is the weather in Paris tomorrow');
    expect('status' in answer).toBe(false);
    const text = textOf(answer as Message);
    expect(text).toContain('None of the agents I delegate to has a skill for that');
    expect(text).toContain('- Dice: Roll dice');
    expect(text).toContain('- Translator: English to Simplified Chinese');
    expect(text).toContain('(e.g. "roll 2d6")');
  });

  it('relays the peer’s streamed chunks as its own', async () => {
    const text = 'Good morning. Thank you very much! I love my cat.';
    const direct = await createClient(peers.translator, { cardResolver: createCardResolver() });
    const chunksOf = (events: StreamResponse[]) =>
      events.flatMap((e) =>
        e.artifactUpdate === undefined
          ? []
          : [
              [
                e.artifactUpdate.append === true,
                e.artifactUpdate.lastChunk === true,
                textOf(e.artifactUpdate.artifact),
              ],
            ],
      );
    const expected = chunksOf(
      await collect(
        direct.sendStreamingMessage({ message: { parts: [{ text: `translate ${text}` }] } }),
      ),
    );
    const relayed = await collect(
      main.sendStreamingMessage({ message: { parts: [{ text: `translate ${text}` }] } }),
    );
    expect(expected.length).toBeGreaterThan(2);
    expect(chunksOf(relayed)).toEqual(expected);
    expect(relayed.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('turns the peer’s INPUT_REQUIRED into its own, and the answer goes to the same peer task', async () => {
    const talk = main.conversation();
    const asked = (await talk.send('roll banana')) as Task;
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(textOf(asked.status.message)).toContain('What should I roll?');
    const ref = asked.status.message?.parts[0]?.metadata?.[PEER_TASK_KEY] as unknown as PeerTaskRef;
    expect(JSON.stringify(ref)).not.toContain('127.0.0.1');
    const diceClient = await createClient(peers.dice, { cardResolver: createCardResolver() });
    expect((await diceClient.getTask({ id: ref.taskId })).status.state).toBe(
      'TASK_STATE_INPUT_REQUIRED',
    );

    const rolled = (await talk.send('3d8')) as Task;
    expect(rolled.id).toBe(asked.id);
    expect(rolled.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(rolled)).toMatch(/^Rolled 3d8: /);
    const peerTask = await diceClient.getTask({ id: ref.taskId });
    expect(peerTask.status.state).toBe('TASK_STATE_COMPLETED');
    expect(peerTask.history?.filter((m) => m.role === 'ROLE_USER').map(textOf)).toEqual([
      'roll banana',
      '3d8',
    ]);
  });

  it('never passes the caller’s credentials on; the caller is an opaque reference', async () => {
    const before = peerAuthorization.length;
    const diceClient = await createClient(peers.dice, { cardResolver: createCardResolver() });
    const roll = (await main.send('roll d20')) as Task;
    expect(roll.status.state).toBe('TASK_STATE_COMPLETED');
    const calls = peerAuthorization.slice(before);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((header) => header != null)).toEqual([]);
    const listed = await diceClient.listTasks({ pageSize: 1 });
    const forwarded = listed.tasks[0]?.history?.[0];
    expect(forwarded?.metadata?.[CALLER_REFERENCE_KEY]).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(forwarded)).not.toContain('alice');
    expect(JSON.stringify(forwarded)).not.toContain('caller-secret');
  });

  it('cancels the peer’s task when its own is canceled', async () => {
    const echoClient = await createClient(peers.echo, { cardResolver: createCardResolver() });
    const stream = main.sendStreamingMessage({
      message: { parts: [{ text: 'slowstream 200 50' }] },
    });
    let taskId = '';
    let peerTaskId = '';
    for await (const event of stream) {
      taskId ||= event.task?.id ?? '';
      if (event.artifactUpdate !== undefined && peerTaskId === '') {
        const working = await echoClient.listTasks({ status: 'TASK_STATE_WORKING' });
        peerTaskId = working.tasks[0]?.id ?? '';
        expect((await main.cancelTask({ id: taskId })).status.state).toBe('TASK_STATE_CANCELED');
      }
      if (event.statusUpdate?.status.state === 'TASK_STATE_CANCELED') break;
    }
    expect(peerTaskId).not.toBe('');
    const peerTask = await pollUntil(
      async () => {
        const task = await echoClient.getTask({ id: peerTaskId });
        return task.status.state === 'TASK_STATE_CANCELED' ? task : undefined;
      },
      'the peer task to be canceled',
      { timeoutMs: 5_000 },
    );
    expect(peerTask.status.state).toBe('TASK_STATE_CANCELED');
  });
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
      const diceClient = await createClient(peers.dice, { cardResolver: createCardResolver() });
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

describe('an orchestrator that is its own peer', () => {
  it('stops handing the request around after a few hops', async () => {
    const urls: string[] = [];
    const agent = createOrchestratorAgent({ peers: urls, cardResolver: createCardResolver() });
    const { url } = await serve({ loop: agent });
    urls.push(`${url}/agents/loop`);
    const client = await createClient(`${url}/agents/loop`, { cardResolver: createCardResolver() });
    const task = (await client.send('roll 2d6')) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(task)).toContain('This request has passed through 5 orchestrators already');
    expect((await client.listTasks({})).totalSize).toBe(4);
  });
});
