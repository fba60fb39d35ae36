/**
 * The smoke checks of bench-agent.md over gRPC (spec 10), for the targets whose gRPC rows are
 * measured: the card's `GRPC` 1.0 interface, `SendMessage` of `echo`, `GetTask` of it on the same
 * connection and of an unknown id (`NOT_FOUND`), and the messages of `stream 5 16` and
 * `slowstream 3 30 8` (with its delay) from `SendStreamingMessage`, each task fetched after.
 * Points as in the contract, read for this binding.
 */

import {
  GRPC_STATUS,
  GrpcChannel,
  a2aTypes,
  sendMessageRequests,
  toPlain,
} from './grpc-client.mjs';
import { createMessageIds } from './json-rpc.mjs';
import {
  checkRunner,
  expect,
  expectCompletedTask,
  expectEventSequence,
  expectSlowChunkTimes,
  expectStreamedTask,
} from './smoke-checks.mjs';
import { interfaceOf } from './targets.mjs';

/** Checks an OK unary call and returns its response decoded as `type`. */
function responseOf(outcome, type, what) {
  expect(outcome.status === GRPC_STATUS.OK, `${what}: ${outcome.error}`);
  expect(outcome.messages === 1, `${what}: ${outcome.messages} response messages, expected 1`);
  return toPlain(type, type.decode(outcome.last));
}

/**
 * @param {import('./targets.mjs').RunningTarget} server started with a gRPC port
 * @returns {Promise<{ok: boolean, checks: {point: string, name: string, ok: boolean, detail?: string}[]}>}
 */
export async function grpcSmokeCheck(server) {
  const { checks, run } = checkRunner();
  const types = a2aTypes();
  const listed = await run('2', 'the card lists a GRPC 1.0 interface', () => {
    const entry = interfaceOf(server.card, 'GRPC');
    expect(
      entry !== undefined,
      'no supportedInterfaces entry with protocolBinding GRPC, protocolVersion 1.0 and a URL',
    );
    return `gRPC at ${entry.url} (used: 127.0.0.1:${server.grpcPort})`;
  });
  if (!listed) return { ok: false, checks };

  const channel = new GrpcChannel(server.grpcPort);
  const nextId = createMessageIds();
  const getTask = (id) =>
    channel.call('GetTask', types.GetTaskRequest.encode({ id }).finish(), { timeoutMs: 10_000 });
  try {
    let echoTask;
    const echoed = await run(
      '4',
      'SendMessage "echo hello bench" completes with the echoed artifact',
      async () => {
        const outcome = await channel.call(
          'SendMessage',
          sendMessageRequests('echo hello bench', nextId)(),
          { timeoutMs: 10_000 },
        );
        echoTask = responseOf(outcome, types.SendMessageResponse, 'SendMessage').task;
        expectCompletedTask(echoTask, 'hello bench', 'SendMessage');
      },
    );
    if (echoed) {
      await run('4, 6', 'GetTask returns the task on the same connection', async () => {
        const task = responseOf(await getTask(echoTask.id), types.Task, 'GetTask');
        expect(task.id === echoTask.id, `GetTask returned task ${task.id}`);
        expectCompletedTask(task, 'hello bench', 'GetTask');
      });
    }
    await run('4, 6', 'GetTask of an unknown id is status NOT_FOUND (5)', async () => {
      const outcome = await getTask(crypto.randomUUID());
      expect(
        outcome.status === GRPC_STATUS.NOT_FOUND,
        `expected status 5, got ${outcome.error ?? `status ${outcome.status}`}`,
      );
    });

    const streamCheck = (command, chunks, bytes, timing) => async () => {
      const events = [];
      const chunkArrivalsMs = [];
      const outcome = await channel.call(
        'SendStreamingMessage',
        sendMessageRequests(command, nextId)(),
        {
          timeoutMs: 10_000,
          onMessage: (bytes, atMs) => {
            const event = toPlain(types.StreamResponse, types.StreamResponse.decode(bytes));
            events.push(event);
            if (event.artifactUpdate !== undefined) chunkArrivalsMs.push(atMs);
          },
        },
      );
      expect(outcome.status === GRPC_STATUS.OK, `${command}: ${outcome.error}`);
      const taskId = expectEventSequence(events, chunks, bytes, command);
      timing?.(chunkArrivalsMs);
      const what = `GetTask after "${command}"`;
      expectStreamedTask(responseOf(await getTask(taskId), types.Task, what), chunks, bytes, what);
      return `${outcome.messages} messages, last after ${outcome.lastMessageMs.toFixed(1)} ms`;
    };
    await run(
      '5, 6',
      'SendStreamingMessage "stream 5 16": the messages of the contract, then GetTask',
      streamCheck('stream 5 16', 5, 16),
    );
    await run(
      '5, 6',
      'SendStreamingMessage "slowstream 3 30 8": the messages, with its delay, then GetTask',
      streamCheck('slowstream 3 30 8', 3, 8, expectSlowChunkTimes),
    );
  } finally {
    await channel.close();
  }
  return { ok: checks.every((c) => c.ok), checks };
}
