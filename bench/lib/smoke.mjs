/**
 * The smoke test of bench-agent.md: points 1–6 checked against a running target before anything
 * is measured (`echo`, `GetTask`, `stream 5 16`, `slowstream 3 30 8` with its delay, the
 * unknown-id error). A target that fails any check is refused: a fast server that answers the
 * wrong thing would otherwise win the benchmark.
 */

import { Agent } from 'node:http';
import { jsonRpcPathOf } from './targets.mjs';
import { get, post, rpcBody, userMessage } from './json-rpc.mjs';
import {
  checkRunner,
  expect,
  expectCompletedTask,
  expectEventSequence,
  expectSlowChunkTimes,
  expectStreamedTask,
  parseJson,
} from './smoke-checks.mjs';
import { openStream } from './sse-client.mjs';

/** Checks a JSON-RPC success answer to request `id` and returns its `result`. */
function resultOf(answer, id, what) {
  expect(answer.status === 200, `${what}: HTTP ${answer.status}, expected 200`);
  const response = parseJson(answer.text, what);
  expect(
    response.jsonrpc === '2.0' && response.id === id,
    `${what}: not a JSON-RPC 2.0 answer to id ${id}`,
  );
  expect(response.error === undefined, `${what}: error ${JSON.stringify(response.error)}`);
  expect(response.result !== undefined, `${what}: no result`);
  return response.result;
}

/**
 * Checks the events of `stream <n> <bytes>` / `slowstream` against point 5 (each one JSON-RPC
 * response to the request) and the command's contract; returns the task id.
 */
function expectStreamShape(outcome, requestId, chunks, bytes, what) {
  expect(outcome.ok, `${what}: ${outcome.error}`);
  const events = outcome.data.map((data, i) => {
    const response = parseJson(data, `${what} event ${i}`);
    expect(
      response.jsonrpc === '2.0' && response.id === requestId && response.result !== undefined,
      `${what} event ${i}: not one JSON-RPC response to id ${requestId}: ${data.slice(0, 200)}`,
    );
    return response.result;
  });
  return expectEventSequence(events, chunks, bytes, what);
}

/**
 * Runs the checks in order; a later check that needs an earlier one's result is reported as
 * not run when that one failed.
 * @returns {Promise<{ok: boolean, checks: {point: string, name: string, ok: boolean, detail?: string}[]}>}
 */
export async function smokeCheck(server) {
  const { checks, run } = checkRunner();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  let card;
  let rpcUrl;
  const ready =
    (await run('1', 'GET /.well-known/agent-card.json answers 200 with a card', async () => {
      const answer = await get(server.cardUrl);
      expect(answer.status === 200, `HTTP ${answer.status}`);
      card = parseJson(answer.text, 'the card');
      expect(
        typeof card === 'object' && card !== null && typeof card.name === 'string',
        'not an AgentCard',
      );
    })) &&
    (await run('2', 'the card lists a JSONRPC 1.0 interface', () => {
      const path = jsonRpcPathOf(card);
      expect(
        path !== undefined,
        'no supportedInterfaces entry with protocolBinding JSONRPC, protocolVersion 1.0 and a URL',
      );
      rpcUrl = server.baseUrl + path;
      return `JSON-RPC at ${path}`;
    })) &&
    (await run('3', 'capabilities.streaming is true', () => {
      expect(
        card.capabilities?.streaming === true,
        `capabilities.streaming is ${card.capabilities?.streaming}`,
      );
    }));
  if (!ready) return { ok: false, checks };

  let echoTask;
  const echoed = await run(
    '4',
    'SendMessage "echo hello bench" completes with the echoed artifact',
    async () => {
      const body = rpcBody(
        'SendMessage',
        { message: userMessage(crypto.randomUUID(), 'echo hello bench') },
        11,
      );
      echoTask = resultOf(await post(rpcUrl, body, { agent }), 11, 'SendMessage').task;
      expectCompletedTask(echoTask, 'hello bench', 'SendMessage');
    },
  );
  if (echoed) {
    await run('4, 6', 'GetTask returns the task on the same (kept-alive) connection', async () => {
      const answer = await post(rpcUrl, rpcBody('GetTask', { id: echoTask.id }, 12), { agent });
      expect(answer.reusedSocket, 'the connection was not reused (keep-alive)');
      const task = resultOf(answer, 12, 'GetTask');
      expect(task.id === echoTask.id, `GetTask returned task ${task.id}`);
      expectCompletedTask(task, 'hello bench', 'GetTask');
    });
  }
  await run('4, 6', 'GetTask of an unknown id is JSON-RPC error -32001 with HTTP 200', async () => {
    const answer = await post(rpcUrl, rpcBody('GetTask', { id: crypto.randomUUID() }, 13), {
      agent,
    });
    expect(answer.status === 200, `HTTP ${answer.status}`);
    const response = parseJson(answer.text, 'GetTask');
    expect(
      response.error?.code === -32001,
      `expected error -32001, got ${answer.text.slice(0, 200)}`,
    );
  });

  const streamCheck = (command, chunks, bytes, requestId, timing) => async () => {
    const body = rpcBody(
      'SendStreamingMessage',
      { message: userMessage(crypto.randomUUID(), command) },
      requestId,
    );
    const outcome = await openStream(rpcUrl, body, { agent, keepData: true, timeoutMs: 10_000 });
    const taskId = expectStreamShape(outcome, requestId, chunks, bytes, command);
    timing?.(outcome);
    const stored = resultOf(
      await post(rpcUrl, rpcBody('GetTask', { id: taskId }, requestId + 1), { agent }),
      requestId + 1,
      `GetTask after "${command}"`,
    );
    expectStreamedTask(stored, chunks, bytes, `GetTask after "${command}"`);
    return `${outcome.events} events, last after ${outcome.lastEventMs.toFixed(1)} ms`;
  };
  await run(
    '5, 6',
    'SendStreamingMessage "stream 5 16": the events of the contract, then GetTask',
    streamCheck('stream 5 16', 5, 16, 21),
  );
  await run(
    '5, 6',
    'SendStreamingMessage "slowstream 3 30 8": the events, with its delay, then GetTask',
    streamCheck('slowstream 3 30 8', 3, 8, 31, (outcome) =>
      expectSlowChunkTimes(
        outcome.arrivalMs.filter((_, i) => outcome.data[i].includes('"artifactUpdate"')),
      ),
    ),
  );
  agent.destroy();
  return { ok: checks.every((c) => c.ok), checks };
}
