/**
 * The orchestrator against the real demo agents (dice, translator, echo) on loopback, over real
 * HTTP: routing by skills, the answer when nothing fits, the streaming relay, the input-required
 * round trip to the same peer task, the caller's credentials kept back, cancel propagation, and
 * an orchestrator that is its own peer.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import type { A2AClient, Message, StreamResponse, Task } from '../../../src/client.js';
import { createCardResolver } from '../../../src/client.js';
import {
  CALLER_REFERENCE_KEY,
  createOrchestratorAgent,
} from '../../../src/agents/orchestrator/orchestrator-agent.js';
import {
  PEER_TASK_KEY,
  type PeerTaskRef,
} from '../../../src/agents/orchestrator/peer-delegation.js';
import { pollUntil } from '../../support/sync.js';
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
let main: A2AClient;

beforeAll(async () => {
  peers = await startDemoPeers();
  main = await orchestrator({
    peers: [peers.dice, peers.translator, peers.echo],
    callerReference: true,
  });
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
    const direct = await clientOf(peers.translator);
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
    const diceClient = await clientOf(peers.dice);
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
    const before = peers.authorization.length;
    const diceClient = await clientOf(peers.dice);
    const roll = (await main.send('roll d20')) as Task;
    expect(roll.status.state).toBe('TASK_STATE_COMPLETED');
    const calls = peers.authorization.slice(before);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((header) => header != null)).toEqual([]);
    const listed = await diceClient.listTasks({ pageSize: 1 });
    const forwarded = listed.tasks[0]?.history?.[0];
    expect(forwarded?.metadata?.[CALLER_REFERENCE_KEY]).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(forwarded)).not.toContain('alice');
    expect(JSON.stringify(forwarded)).not.toContain('caller-secret');
  });

  it('cancels the peer’s task when its own is canceled', async () => {
    const echoClient = await clientOf(peers.echo);
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

describe('an orchestrator that is its own peer', () => {
  it('stops handing the request around after a few hops', async () => {
    const urls: string[] = [];
    const agent = createOrchestratorAgent({ peers: urls, cardResolver: createCardResolver() });
    const { url } = await serve({ loop: agent });
    urls.push(`${url}/agents/loop`);
    const client = await clientOf(`${url}/agents/loop`);
    const task = (await client.send('roll 2d6')) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(task)).toContain('This request has passed through 5 orchestrators already');
    expect((await client.listTasks({})).totalSize).toBe(4);
  });
});
