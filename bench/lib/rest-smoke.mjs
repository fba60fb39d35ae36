/**
 * The smoke checks of bench-agent.md over HTTP+JSON/REST, for the targets whose REST rows are
 * measured: the card's `HTTP+JSON` 1.0 interface, `message:send` of `echo`, `GET /tasks/{id}` on
 * a kept-alive connection and of an unknown id (404), and the events of `stream 5 16` from
 * `message:stream` (each SSE `data:` a bare `StreamResponse`, spec 11.7) with the task after it.
 * Points as in the contract, read for this binding.
 */

import { Agent } from 'node:http';
import { get, post } from './json-rpc.mjs';
import { REST_GET_HEADERS, restMessageBody, restTaskUrl } from './rest.mjs';
import {
  checkRunner,
  expect,
  expectCompletedTask,
  expectEventSequence,
  expectStreamedTask,
  parseJson,
} from './smoke-checks.mjs';
import { openStream } from './sse-client.mjs';
import { restPathOf } from './targets.mjs';

/** Checks a 200 JSON answer and returns its body. */
function bodyOf(answer, what) {
  expect(answer.status === 200, `${what}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  return parseJson(answer.text, what);
}

/**
 * @param {import('./targets.mjs').RunningTarget} server
 * @returns {Promise<{ok: boolean, checks: {point: string, name: string, ok: boolean, detail?: string}[]}>}
 */
export async function restSmokeCheck(server) {
  const { checks, run } = checkRunner();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let restUrl;
  const listed = await run('2', 'the card lists an HTTP+JSON 1.0 interface', () => {
    const path = restPathOf(server.card);
    expect(
      path !== undefined,
      'no supportedInterfaces entry with protocolBinding HTTP+JSON, protocolVersion 1.0 and a URL',
    );
    restUrl = server.baseUrl + path;
    return `REST at ${path === '' ? '/' : path}`;
  });
  if (!listed) return { ok: false, checks };

  let echoTask;
  const echoed = await run(
    '4',
    'POST message:send "echo hello bench" completes with the echoed artifact',
    async () => {
      const answer = await post(
        `${restUrl}/message:send`,
        restMessageBody(crypto.randomUUID(), 'echo hello bench'),
        { agent },
      );
      echoTask = bodyOf(answer, 'message:send').task;
      expectCompletedTask(echoTask, 'hello bench', 'message:send');
    },
  );
  if (echoed) {
    await run(
      '4, 6',
      'GET tasks/{id} returns the task on the same (kept-alive) connection',
      async () => {
        const answer = await get(restTaskUrl(restUrl, echoTask.id), {
          agent,
          headers: REST_GET_HEADERS,
        });
        expect(answer.reusedSocket, 'the connection was not reused (keep-alive)');
        const task = bodyOf(answer, 'GET tasks/{id}');
        expect(task.id === echoTask.id, `GET tasks/{id} returned task ${task.id}`);
        expectCompletedTask(task, 'hello bench', 'GET tasks/{id}');
      },
    );
  }
  await run('4, 6', 'GET tasks/{id} of an unknown id is HTTP 404 NOT_FOUND', async () => {
    const answer = await get(restTaskUrl(restUrl, crypto.randomUUID()), {
      agent,
      headers: REST_GET_HEADERS,
    });
    expect(answer.status === 404, `HTTP ${answer.status}, expected 404`);
    const status = parseJson(answer.text, 'the error').error?.status;
    expect(status === 'NOT_FOUND', `error.status ${status}, expected NOT_FOUND`);
  });
  await run(
    '5, 6',
    'POST message:stream "stream 5 16": the events of the contract, then GET tasks/{id}',
    async () => {
      const outcome = await openStream(
        `${restUrl}/message:stream`,
        restMessageBody(crypto.randomUUID(), 'stream 5 16'),
        { agent, keepData: true, timeoutMs: 10_000 },
      );
      expect(outcome.ok, `stream 5 16: ${outcome.error}`);
      const events = outcome.data.map((data, i) => parseJson(data, `stream 5 16 event ${i}`));
      const taskId = expectEventSequence(events, 5, 16, 'stream 5 16');
      const stored = bodyOf(
        await get(restTaskUrl(restUrl, taskId), { agent, headers: REST_GET_HEADERS }),
        'GET tasks/{id} after "stream 5 16"',
      );
      expectStreamedTask(stored, 5, 16, 'GET tasks/{id} after "stream 5 16"');
      return `${outcome.events} events, last after ${outcome.lastEventMs.toFixed(1)} ms`;
    },
  );
  agent.destroy();
  return { ok: checks.every((c) => c.ok), checks };
}
