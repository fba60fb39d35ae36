/**
 * Abuse limits (spec 13.4) on every binding: a caller over its request rate or new-task rate is
 * refused `RESOURCE_EXHAUSTED` (HTTP 429 with `Retry-After`, in the binding's error shape), a
 * message over the part limit `InvalidParamsError` naming `message.parts`, a stream over the
 * concurrent-stream limit `RESOURCE_EXHAUSTED`; limits are per principal (per address when
 * anonymous); nothing is stored for a refused call, and the hit is logged without credentials.
 * And what one task may hold: artifact bytes and kept history, refused with the limit's name.
 */

import { expect, it } from 'vitest';
import { InvalidParamsError, UnsupportedOperationError, textPart } from '../../src/index.js';
import {
  CredentialList,
  TaskContentLimitError,
  bearerAuthentication,
  defineAgent,
  type AgentDefinition,
  type CallLimitsOptions,
  type TaskContentLimits,
} from '../../src/server.js';
import { refusal, rejection, violatedFields } from '../support/a2a-errors.js';
import { testAgent, testCard } from '../support/agents.js';
import { describeBehaviour, type BehaviourEnv } from '../support/behaviour-env.js';
import type { A2ADriver, BindingName } from '../support/drivers/a2a-driver.js';
import { createDriver, isHttpBinding } from '../support/drivers/bindings.js';
import type { CallRefusedError } from '../support/drivers/connection.js';
import { artifactTexts, historyOf, send, textOf, userText } from '../support/messages.js';
import { recordingLogger } from '../support/recording-logger.js';
import { pollUntil } from '../support/sync.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';

/**
 * Writes what it is told: `artifacts <n> <size>` n artifacts of `size` bytes; `catch <size>` one
 * artifact of `size` bytes, completing with the limit it hit if refused; anything else, and every
 * later message, asks for more input.
 */
const contentAgent: AgentDefinition = defineAgent({
  card: testCard('Content'),
  async execute(ctx) {
    const [command = '', ...args] = ctx.text.split(' ');
    const [n = 1, size = 1] = args.map(Number);
    if (ctx.task === undefined && command === 'artifacts') {
      for (let i = 0; i < n; i++) await ctx.artifact(String(i).repeat(size));
      return ctx.complete();
    }
    if (ctx.task === undefined && command === 'catch') {
      try {
        await ctx.artifact('x'.repeat(n));
      } catch (error) {
        if (error instanceof TaskContentLimitError) return ctx.complete(`caught ${error.limit}`);
        throw error;
      }
      return ctx.complete('stored');
    }
    return ctx.inputRequired(`more than ${ctx.text}?`);
  },
});

async function serveLimited(
  env: BehaviourEnv,
  limits: CallLimitsOptions & TaskContentLimits,
  authenticated = true,
  agent: AgentDefinition = testAgent,
) {
  const logger = recordingLogger();
  const tokens = new CredentialList({
    kind: 'inline',
    text: `alice ${ALICE}\nbob ${BOB}`,
    label: 'tokens',
  });
  const { artifactBytesPerTask, historyLength, ...calls } = limits;
  const server = await env.serve(agent, {
    limits: calls,
    contentLimits: { artifactBytesPerTask, historyLength },
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

function expectRetryAfter(refused: CallRefusedError, binding: BindingName): void {
  if (!isHttpBinding(binding)) return;
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

  it('fails a task whose agent writes more artifact bytes than the limit, keeping what fit', async () => {
    const { as } = await serveLimited(env, { artifactBytesPerTask: 25 }, true, contentAgent);
    const alice = as(ALICE);
    const task = await alice.sendTask(send('artifacts 3 10'));
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(textOf(task.status.message)).toMatch(
      /would hold 30 bytes of artifacts, more than the 25 it may \(limit artifactBytesPerTask\)$/,
    );
    // The two artifacts within the limit were stored; the one over it was not, not even in part.
    expect(artifactTexts(await alice.getTask({ id: task.id }))).toEqual([
      ['0'.repeat(10)],
      ['1'.repeat(10)],
    ]);
    // The runtime logs it (before it writes the failure the client saw).
    const entry = env.logs.find(
      (e) =>
        e.message === 'a task reached a content limit' &&
        'taskId' in e.context &&
        e.context.taskId === task.id,
    );
    expect(entry?.context).toMatchObject({ limit: 'artifactBytesPerTask' });
    // An agent may catch the refusal and carry on.
    const caught = await alice.sendTask(send('catch 26'));
    expect(caught.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(caught.status.message)).toBe('caught artifactBytesPerTask');
    expect(caught.artifacts ?? []).toEqual([]);
  });

  it('refuses a message that would take the history past the limit, leaving the task as it was', async () => {
    const { as } = await serveLimited(env, { historyLength: 4 }, true, contentAgent);
    const alice = as(ALICE);
    const task = await alice.sendTask(send('one'));
    const second = await alice.sendTask(send('two', { taskId: task.id }));
    expect(historyOf(second)).toEqual([
      'user: one',
      'agent: more than one?',
      'user: two',
      'agent: more than two?',
    ]);
    const error = await rejection(
      alice.sendMessage(send('three', { taskId: task.id })),
      UnsupportedOperationError,
    );
    expect(error.message).toBe(
      `Task ${task.id} keeps 4 messages in its history, the most it may (limit historyLength 4); start a new task in the same context`,
    );
    expect(await alice.getTask({ id: task.id })).toEqual(second);
  });

  it('ends a task whose agent would pass the history limit, with the limit in its last message', async () => {
    const { as } = await serveLimited(env, { historyLength: 3 }, true, contentAgent);
    const alice = as(ALICE);
    const task = await alice.sendTask(send('one'));
    const ended = await alice.sendTask(send('two', { taskId: task.id }));
    expect(ended.status.state).toBe('TASK_STATE_FAILED');
    expect(textOf(ended.status.message)).toMatch(/\(limit historyLength 3\)$/);
    expect(historyOf(ended).slice(0, 3)).toEqual([
      'user: one',
      'agent: more than one?',
      'user: two',
    ]);
  });
});
