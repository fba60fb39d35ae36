/**
 * Abuse limits (spec 13.4) on every binding: a caller over its request rate or new-task rate is
 * refused `RESOURCE_EXHAUSTED` (HTTP 429 with `Retry-After`, in the binding's error shape), a
 * message over the part limit `InvalidParamsError` naming `message.parts`, a stream over the
 * concurrent-stream limit `RESOURCE_EXHAUSTED`; limits are per principal (per address when
 * anonymous); nothing is stored for a refused call, and the hit is logged without credentials.
 */

import { expect, it } from 'vitest';
import { InvalidParamsError, textPart } from '../../src/index.js';
import { CredentialList, bearerAuthentication, type CallLimitsOptions } from '../../src/server.js';
import { refusal, rejection, violatedFields } from '../support/a2a-errors.js';
import { testAgent } from '../support/agents.js';
import { describeBehaviour, type BehaviourEnv } from '../support/behaviour-env.js';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import { createDriver } from '../support/drivers/bindings.js';
import type { CallRefusedError } from '../support/drivers/driver-connection.js';
import { send, userText } from '../support/messages.js';
import { recordingLogger } from '../support/recording-logger.js';
import { pollUntil } from '../support/sync.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';

async function serveLimited(env: BehaviourEnv, limits: CallLimitsOptions, authenticated = true) {
  const logger = recordingLogger();
  const tokens = new CredentialList({
    kind: 'inline',
    text: `alice ${ALICE}\nbob ${BOB}`,
    label: 'tokens',
  });
  const server = await env.serve(testAgent, {
    limits,
    logger,
    http: authenticated ? { authenticate: bearerAuthentication(tokens) } : {},
  });
  const as = (token: string | undefined): A2ADriver =>
    createDriver(
      env.binding,
      server.agent.url,
      token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
    );
  return { as, logger, server };
}

function expectRetryAfter(refused: CallRefusedError, binding: string): void {
  if (binding === 'grpc') return;
  expect(refused.transport.httpStatus).toBe(429);
  expect(Number(refused.transport.retryAfter)).toBeGreaterThanOrEqual(1);
}

describeBehaviour('abuse limits', (env) => {
  it('refuses requests over the rate with 429 and Retry-After, per principal', async () => {
    const { as, logger } = await serveLimited(env, { requestsPerMinute: 3 });
    const alice = as(ALICE);
    for (let i = 0; i < 3; i++) await alice.listTasks();
    const refused = await refusal(alice.getTask({ id: 'x' }), 'RESOURCE_EXHAUSTED');
    expect(refused.message).toMatch(/^Too many requests: at most 3 per minute; retry in \d+ s$/);
    expectRetryAfter(refused, env.binding);
    // Streams count too, and are refused before they open.
    await refusal(alice.sendStreamingMessage(send('echo x')), 'RESOURCE_EXHAUSTED');
    // Another principal has its own budget.
    await as(BOB).listTasks();
    const entry = await logger.next((e) => e.message === 'a call was refused by a limit');
    expect(entry.context).toMatchObject({
      operation: 'GetTask',
      limit: 'requestsPerMinute',
      caller: 'principal:alice',
    });
    expect(JSON.stringify(logger.entries)).not.toContain(ALICE);
  });

  it('limits anonymous callers by address', async () => {
    const { as } = await serveLimited(env, { requestsPerMinute: 2 }, false);
    await as(undefined).listTasks();
    await as(undefined).listTasks();
    await refusal(as(undefined).listTasks(), 'RESOURCE_EXHAUSTED');
  });

  it('refuses new tasks over their rate, storing nothing, while existing tasks continue', async () => {
    const { as } = await serveLimited(env, { tasksPerMinute: 2 });
    const alice = as(ALICE);
    const asking = await alice.sendTask(send('ask'));
    await alice.sendTask(send('echo one'));
    const refused = await refusal(alice.sendMessage(send('echo two')), 'RESOURCE_EXHAUSTED');
    expect(refused.message).toMatch(/^Too many new tasks: at most 2 per minute; retry in \d+ s$/);
    expectRetryAfter(refused, env.binding);
    await refusal(alice.sendStreamingMessage(send('echo three')), 'RESOURCE_EXHAUSTED');
    expect((await alice.listTasks()).totalSize).toBe(2);
    const resumed = await alice.sendTask(send('Alice', { taskId: asking.id }));
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses a message with too many parts, naming the field and the limit, storing nothing', async () => {
    const { as } = await serveLimited(env, { partsPerMessage: 2 });
    const alice = as(ALICE);
    const message = userText('echo a', { parts: [textPart('a'), textPart('b'), textPart('c')] });
    const error = await rejection(alice.sendMessage({ message }), InvalidParamsError);
    expect(violatedFields(error)).toEqual(['message.parts']);
    expect(error.violations[0]?.description).toBe(
      'has 3 parts; at most 2 are accepted (limit partsPerMessage)',
    );
    await rejection(alice.sendStreamingMessage({ message }), InvalidParamsError);
    expect((await alice.listTasks()).tasks).toEqual([]);
  });

  it('refuses a stream over the concurrent limit until one closes', async () => {
    const { as } = await serveLimited(env, { concurrentStreams: 1 });
    const alice = as(ALICE);
    const open = await alice.sendStreamingMessage(send('wait'));
    const [first] = await open.take(1);
    const taskId = first?.response.task?.id as string;
    const refused = await refusal(alice.subscribeToTask({ id: taskId }), 'RESOURCE_EXHAUSTED');
    expect(refused.message).toBe('Too many open streams: at most 1 at once; close one first');
    await refusal(alice.sendStreamingMessage(send('echo x')), 'RESOURCE_EXHAUSTED');
    expect((await alice.listTasks()).totalSize).toBe(1);
    // Bob is not held back by Alice's streams.
    const bobs = await as(BOB).sendStreamingMessage(send('echo hi'));
    await bobs.rest();
    await alice.cancelTask({ id: taskId });
    await open.rest();
    // The server releases the stream once its side is closed: no event tells the test when.
    const again = await pollUntil(
      () => alice.sendStreamingMessage(send('echo y')).catch(() => undefined),
      'the stream limit to be released',
    );
    await again.rest();
  });
});
