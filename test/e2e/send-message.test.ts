/**
 * SendMessage end to end: task and context identifiers, multi-turn rules, blocking and
 * non-blocking execution, what the stored task keeps (history, artifacts, every event), direct
 * message replies, content types, and agent failures — over real HTTP, over every binding,
 * against every store.
 */

import { expect, it } from 'vitest';
import {
  ContentTypeNotSupportedError,
  InvalidParamsError,
  TaskNotFoundError,
  UnsupportedOperationError,
  type Task,
} from '../../src/index.js';
import { defineAgent, type AgentContext } from '../../src/server.js';
import { rejection, violatedFields } from '../support/a2a-errors.js';
import { testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import { UUID, artifactTexts, historyOf, send, textOf, userText } from '../support/messages.js';
import { deferred } from '../support/sync.js';

/** Records what each execution saw. */
interface Seen {
  readonly text: string;
  readonly taskId: string;
  readonly contextId: string;
  readonly messageContextId: string | undefined;
  readonly task: Task | undefined;
}

function see(ctx: AgentContext): Seen {
  return {
    text: ctx.text,
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    messageContextId: ctx.message.contextId,
    task: ctx.task,
  };
}

/**
 * A conversational agent: the first message of a task asks a question (`INPUT_REQUIRED`, or
 * `AUTH_REQUIRED` for "auth"), the next one completes it with an artifact. Commands "complete",
 * "fail" and "reject" end the task at once.
 */
function conversationAgent(seen: Seen[] = []) {
  return defineAgent({
    card: testCard('Conversation'),
    async execute(ctx) {
      seen.push(see(ctx));
      if (ctx.task !== undefined) {
        await ctx.artifact(`answer: ${ctx.text}`);
        return ctx.complete('done');
      }
      switch (ctx.text) {
        case 'complete':
          return ctx.complete();
        case 'fail':
          return ctx.fail('failed on purpose');
        case 'reject':
          return ctx.reject('will not do it');
        case 'auth':
          return ctx.authRequired('Sign in first');
        default:
          return ctx.inputRequired('Which colour?');
      }
    },
  });
}

describeBehaviour('SendMessage', (env) => {
  it('creates tasks with server-generated UUIDs and a new contextId for a message without one', async () => {
    const seen: Seen[] = [];
    const { agent } = await env.serve(conversationAgent(seen));
    const first = await agent.sendTask(send('complete'));
    const second = await agent.sendTask(send('complete'));
    for (const task of [first, second]) {
      expect(task.id).toMatch(UUID);
      expect(task.contextId).toMatch(UUID);
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.history?.[0]).toMatchObject({ taskId: task.id, contextId: task.contextId });
    }
    expect(second.id).not.toBe(first.id);
    expect(second.contextId).not.toBe(first.contextId);
    expect(seen.map((s) => s.taskId)).toEqual([first.id, second.id]);
  });

  it('accepts a client-provided contextId and keeps tasks in it', async () => {
    const seen: Seen[] = [];
    const { agent } = await env.serve(conversationAgent(seen));
    const contextId = `client-context-${crypto.randomUUID()}`;
    const first = await agent.sendTask(send('complete', { contextId }));
    const second = await agent.sendTask(send('complete', { contextId }));
    expect(first.contextId).toBe(contextId);
    expect(second.contextId).toBe(contextId);
    expect(seen.map((s) => s.contextId)).toEqual([contextId, contextId]);
    const listed = await agent.listTasks({ contextId });
    expect(listed.tasks.map((t) => t.id).sort()).toEqual([first.id, second.id].sort());
  });

  it('refuses a taskId that references no task with TaskNotFound and runs nothing', async () => {
    const seen: Seen[] = [];
    const { agent } = await env.serve(conversationAgent(seen));
    const taskId = crypto.randomUUID();
    await rejection(agent.sendMessage(send('hello', { taskId })), TaskNotFoundError);
    await rejection(agent.sendStreamingMessage(send('hello', { taskId })), TaskNotFoundError);
    expect(seen).toEqual([]);
    expect((await agent.listTasks()).totalSize).toBe(0);
  });

  it('rejects a taskId whose task has another contextId with InvalidParams on message.contextId', async () => {
    const seen: Seen[] = [];
    const { agent } = await env.serve(conversationAgent(seen));
    const task = await agent.sendTask(send('paint'));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const error = await rejection(
      agent.sendMessage(
        send('blue', { taskId: task.id, contextId: `other-${crypto.randomUUID()}` }),
      ),
      InvalidParamsError,
    );
    expect(violatedFields(error)).toEqual(['message.contextId']);
    const after = await agent.getTask({ id: task.id });
    expect(after.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(historyOf(after)).toEqual(['user: paint', 'agent: Which colour?']);
    expect(seen).toHaveLength(1);
  });

  it('infers the contextId from the task when only the taskId is given', async () => {
    const seen: Seen[] = [];
    const { agent } = await env.serve(conversationAgent(seen));
    const task = await agent.sendTask(send('paint'));
    const resumed = await agent.sendTask(send('blue', { taskId: task.id }));
    expect(resumed.contextId).toBe(task.contextId);
    expect(seen[1]).toMatchObject({
      taskId: task.id,
      contextId: task.contextId,
      messageContextId: task.contextId,
    });
    expect(resumed.history?.[2]).toMatchObject({ taskId: task.id, contextId: task.contextId });
    // Sending the task's own contextId along is accepted too.
    const again = await agent.sendTask(send('paint'));
    const explicit = await agent.sendTask(
      send('red', { taskId: again.id, contextId: again.contextId ?? '' }),
    );
    expect(explicit.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses a message to a task in any terminal state with UnsupportedOperation', async () => {
    const seen: Seen[] = [];
    const { agent } = await env.serve(conversationAgent(seen));
    const completed = await agent.sendTask(send('complete'));
    const failed = await agent.sendTask(send('fail'));
    const rejected = await agent.sendTask(send('reject'));
    const interrupted = await agent.sendTask(send('paint'));
    const canceled = await agent.cancelTask({ id: interrupted.id });
    const terminal = [completed, failed, rejected, canceled];
    expect(terminal.map((t) => t.status.state)).toEqual([
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
      'TASK_STATE_REJECTED',
      'TASK_STATE_CANCELED',
    ]);
    for (const task of terminal) {
      await rejection(
        agent.sendMessage(send('more', { taskId: task.id })),
        UnsupportedOperationError,
      );
      await rejection(
        agent.sendStreamingMessage(send('more', { taskId: task.id })),
        UnsupportedOperationError,
      );
      expect(historyOf(await agent.getTask({ id: task.id }))).not.toContain('user: more');
    }
    expect(seen).toHaveLength(4);
  });

  it('resumes a task interrupted for input, or for authorization, with the next message', async () => {
    const seen: Seen[] = [];
    const { agent } = await env.serve(conversationAgent(seen));
    for (const [first, question] of [
      ['paint', 'Which colour?'],
      ['auth', 'Sign in first'],
    ] as const) {
      const task = await agent.sendTask(send(first));
      expect(task.status.state).toBe(
        first === 'auth' ? 'TASK_STATE_AUTH_REQUIRED' : 'TASK_STATE_INPUT_REQUIRED',
      );
      expect(textOf(task.status.message)).toBe(question);
      const resumed = await agent.sendTask(send('blue', { taskId: task.id }));
      expect(resumed.id).toBe(task.id);
      expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
      expect(artifactTexts(resumed)).toEqual([['answer: blue']]);
      // The execution that resumed saw the task with this message at the end of its history.
      const resumedWith = seen.at(-1)?.task;
      expect(resumedWith?.id).toBe(task.id);
      expect(resumedWith === undefined ? [] : historyOf(resumedWith)).toEqual([
        `user: ${first}`,
        `agent: ${question}`,
        'user: blue',
      ]);
    }
  });

  it('refuses a message to a WORKING task with UnsupportedOperation and never starts a second execution', async () => {
    const release = deferred();
    const working = deferred();
    let executions = 0;
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Busy'),
        async execute(ctx) {
          executions++;
          await ctx.working();
          working.resolve();
          await release.promise;
          await ctx.artifact(`handled ${ctx.text}`);
        },
      }),
    );
    const task = await agent.sendTask(send('first', {}, { returnImmediately: true }));
    await working.promise;
    await rejection(
      agent.sendMessage(send('second', { taskId: task.id })),
      UnsupportedOperationError,
    );
    await rejection(
      agent.sendStreamingMessage(send('third', { taskId: task.id })),
      UnsupportedOperationError,
    );
    const watcher = await agent.subscribeToTask({ id: task.id });
    release.resolve();
    const events = await watcher.rest();
    expect(events.at(-1)?.response.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    const final = await agent.getTask({ id: task.id });
    expect(historyOf(final)).toEqual(['user: first']);
    expect(artifactTexts(final)).toEqual([['handled first']]);
    expect(executions).toBe(1);
  });

  it('lets exactly one of several concurrent messages resume an interrupted task', async () => {
    const release = deferred();
    let resumed = 0;
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Race'),
        async execute(ctx) {
          if (ctx.task === undefined) return ctx.inputRequired('go on');
          resumed++;
          await release.promise;
          return ctx.complete(`won by ${ctx.text}`);
        },
      }),
    );
    const task = await agent.sendTask(send('start'));
    const attempts = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((text) =>
        agent.call('SendMessage', send(text, { taskId: task.id }, { returnImmediately: true })),
      ),
    );
    const winners = attempts.filter((a) => a.result?.task !== undefined);
    const losers = attempts.filter((a) => a.error !== undefined);
    expect(winners).toHaveLength(1);
    expect(losers.map((l) => l.error?.type)).toEqual(
      Array<string>(4).fill('UnsupportedOperationError'),
    );
    for (const loser of losers) expect(loser.error).toBeInstanceOf(UnsupportedOperationError);
    const watcher = await agent.subscribeToTask({ id: task.id });
    release.resolve();
    const events = await watcher.rest();
    expect(events.at(-1)?.response.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    const final = await agent.getTask({ id: task.id });
    expect(resumed).toBe(1);
    expect(textOf(final.status.message)).toBe(
      `won by ${textOf(winners[0]?.result?.task?.history?.at(-1))}`,
    );
    expect(historyOf(final)).toHaveLength(4);
  });

  it('blocks until the task is terminal and answers with the latest task and every artifact', async () => {
    const release = deferred();
    const working = deferred();
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Blocking'),
        async execute(ctx) {
          await ctx.working('on it');
          working.resolve();
          await release.promise;
          await ctx.artifact('first');
          await ctx.artifact('second');
          return ctx.complete('finished');
        },
      }),
    );
    const answer = agent.sendTask(send('go'));
    await working.promise;
    release.resolve();
    const task = await answer;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task.status.message)).toBe('finished');
    expect(artifactTexts(task)).toEqual([['first'], ['second']]);
    expect(task).toEqual(await agent.getTask({ id: task.id }));
  });

  it('a blocking caller that goes away does not cancel the task', async () => {
    const started = deferred();
    const release = deferred();
    const finished = deferred();
    const server = await env.serve(
      defineAgent({
        card: testCard('Patient'),
        async execute(ctx) {
          await ctx.working();
          started.resolve();
          await release.promise;
          await ctx.artifact(ctx.signal.aborted ? 'aborted' : 'finished');
          await ctx.complete();
          finished.resolve();
        },
      }),
    );
    const caller = new AbortController();
    const contextId = `ctx-${crypto.randomUUID()}`;
    const blocking = server.agent.sendMessage(send('go', { contextId }), {
      tag: 'leaver',
      signal: caller.signal,
    });
    await started.promise;
    caller.abort();
    await expect(blocking).rejects.toThrow();
    await (
      await server.request('leaver')
    ).closed;
    release.resolve();
    await finished.promise;
    const [task] = (await server.agent.listTasks({ contextId, includeArtifacts: true })).tasks;
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task === undefined ? [] : artifactTexts(task)).toEqual([['finished']]);
  });

  it('returnImmediately answers at once with a task still in progress', async () => {
    const release = deferred();
    const finished = deferred();
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Immediate'),
        async execute(ctx) {
          await ctx.working();
          await release.promise;
          await ctx.artifact('late result');
          await ctx.complete();
          finished.resolve();
        },
      }),
    );
    // The agent cannot finish before the gate opens, so only a non-blocking answer can arrive.
    const task = await agent.sendTask(send('go', {}, { returnImmediately: true }));
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);
    expect(task.artifacts ?? []).toEqual([]);
    release.resolve();
    await finished.promise;
    const final = await agent.getTask({ id: task.id });
    expect(final.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactTexts(final)).toEqual([['late result']]);
  });

  it('stores every event in order while no client is connected', async () => {
    const release = deferred();
    const finished = deferred();
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Unattended'),
        async execute(ctx) {
          // The task exists from the first change on; returnImmediately answers then.
          await ctx.working('step 1');
          await release.promise;
          const id = await ctx.artifact('c0', { lastChunk: false });
          for (let i = 1; i < 20; i++) await ctx.append(id, `c${i}`, { lastChunk: i === 19 });
          await ctx.working('step 2');
          await ctx.artifact('summary');
          await ctx.complete('all done');
          finished.resolve();
        },
      }),
    );
    const task = await agent.sendTask(send('go', {}, { returnImmediately: true }));
    release.resolve();
    await finished.promise;
    const final = await agent.getTask({ id: task.id });
    expect(final.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactTexts(final)).toEqual([
      Array.from({ length: 20 }, (_, i) => `c${i}`),
      ['summary'],
    ]);
    expect(historyOf(final)).toEqual([
      'user: go',
      'agent: step 1',
      'agent: step 2',
      'agent: all done',
    ]);
  });

  it('concatenates appended chunks part by part and replaces an artifact sent without append', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Chunks'),
        async execute(ctx) {
          const id = await ctx.artifact('a', { name: 'report', lastChunk: false });
          await ctx.append(id, [{ text: 'b' }, { text: 'c' }]);
          await ctx.append(id, 'd', { lastChunk: true });
          await ctx.artifact('old', { artifactId: 'other' });
          await ctx.artifact('new', { artifactId: 'other' });
          return ctx.complete();
        },
      }),
    );
    const task = await agent.sendTask(send('go'));
    expect(artifactTexts(task)).toEqual([['a', 'b', 'c', 'd'], ['new']]);
    expect(task.artifacts?.[0]?.name).toBe('report');
    expect(await agent.getTask({ id: task.id })).toEqual(task);
  });

  it('keeps the user messages and the agent status messages in the history, in order', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Historian'),
        async execute(ctx) {
          if (ctx.task === undefined) {
            await ctx.working('thinking');
            await ctx.artifact('not a message');
            return ctx.inputRequired('more?');
          }
          await ctx.working('again');
          return ctx.complete('bye');
        },
      }),
    );
    const task = await agent.sendTask(send('hello'));
    const final = await agent.sendTask(send('yes', { taskId: task.id }));
    expect(historyOf(final)).toEqual([
      'user: hello',
      'agent: thinking',
      'agent: more?',
      'user: yes',
      'agent: again',
      'agent: bye',
    ]);
    expect(
      final.history?.every((m) => m.taskId === task.id && m.contextId === task.contextId),
    ).toBe(true);
  });

  it('honours historyLength: everything when unset, no history field for 0, the last n otherwise', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Looper'),
        execute: (ctx) => ctx.inputRequired(`got ${ctx.text}`),
      }),
    );
    const task = await agent.sendTask(send('m1'));
    expect(historyOf(task)).toEqual(['user: m1', 'agent: got m1']);
    const none = await agent.sendTask(send('m2', { taskId: task.id }, { historyLength: 0 }));
    expect(none).not.toHaveProperty('history');
    expect(none.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const three = await agent.sendTask(send('m3', { taskId: task.id }, { historyLength: 3 }));
    expect(historyOf(three)).toEqual(['agent: got m2', 'user: m3', 'agent: got m3']);
    const all = await agent.sendTask(send('m4', { taskId: task.id }));
    expect(historyOf(all)).toHaveLength(8);
    const more = await agent.sendTask(send('m5', { taskId: task.id }, { historyLength: 100 }));
    expect(historyOf(more)).toHaveLength(10);
  });

  it('answers a new task exactly as GetTask does, with the same historyLength', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Chunker'),
        async execute(ctx) {
          await ctx.working('starting');
          const id = await ctx.artifact('a', { name: 'out' });
          await ctx.append(id, 'b', { lastChunk: true });
          await ctx.artifact('other');
          return ctx.complete('done');
        },
      }),
    );
    const whole = await agent.sendTask(send('go'));
    expect(artifactTexts(whole)).toEqual([['a', 'b'], ['other']]);
    expect(whole).toEqual(await agent.getTask({ id: whole.id }));
    const cut = await agent.sendTask(send('go', {}, { historyLength: 1 }));
    expect(historyOf(cut)).toEqual(['agent: done']);
    expect(cut).toEqual(await agent.getTask({ id: cut.id, historyLength: 1 }));
  });

  it('answers with a direct Message when the agent replies, and creates no task', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Replier'),
        execute: (ctx) => ctx.reply(`pong: ${ctx.text}`),
      }),
    );
    const answer = await agent.sendMessage(send('ping'));
    expect(answer.task).toBeUndefined();
    expect(answer.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 'pong: ping' }] });
    expect(answer.message?.messageId).toMatch(UUID);
    expect(answer.message?.contextId).toMatch(UUID);
    expect(answer.message).not.toHaveProperty('taskId');
    const contextId = `ctx-${crypto.randomUUID()}`;
    const inContext = await agent.sendMessage(send('again', { contextId }));
    expect(inContext.message?.contextId).toBe(contextId);

    const stream = await agent.sendStreamingMessage(send('streamed'));
    const events = await stream.rest();
    expect(events).toHaveLength(1);
    expect(events[0]?.seq).toBeUndefined();
    expect(events[0]?.response.message).toMatchObject({
      role: 'ROLE_AGENT',
      parts: [{ text: 'pong: streamed' }],
    });
    expect(Object.keys(events[0]?.response ?? {})).toEqual(['message']);

    const listed = await agent.listTasks();
    expect(listed.tasks).toEqual([]);
    expect(listed.totalSize).toBe(0);
  });

  it('refuses a part whose media type the agent does not accept with ContentTypeNotSupported', async () => {
    let executions = 0;
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Picky', {
          defaultInputModes: ['text/plain'],
          skills: [
            {
              id: 'json',
              name: 'JSON',
              description: 'Takes JSON',
              tags: ['json'],
              inputModes: ['application/json'],
            },
          ],
        }),
        execute: () => {
          executions++;
        },
      }),
    );
    const image = userText('look', {
      parts: [{ text: 'look' }, { raw: 'iVBORw0KGgo=', mediaType: 'image/png' }],
    });
    for (const call of [
      () => agent.sendMessage({ message: image }),
      () => agent.sendStreamingMessage({ message: image }),
    ]) {
      const error = await rejection(call(), ContentTypeNotSupportedError);
      expect(error.message).toContain('image/png');
    }
    expect(executions).toBe(0);
    expect((await agent.listTasks()).totalSize).toBe(0);
    const accepted = await agent.sendTask({
      message: userText('data', {
        parts: [
          { data: { a: 1 }, mediaType: 'application/json' },
          { text: 'plain', mediaType: 'text/plain' },
        ],
      }),
    });
    expect(accepted.status.state).toBe('TASK_STATE_COMPLETED');
    expect(executions).toBe(1);
  });

  it('fails the task with a safe message when the agent throws, and leaks nothing', async () => {
    const secret = `db password hunter2 at /srv/secret/${crypto.randomUUID()}.ts`;
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Thrower'),
        async execute(ctx) {
          if (ctx.text === 'late') await ctx.artifact('partial');
          throw new Error(secret);
        },
      }),
    );
    const responses: string[] = [];
    for (const text of ['early', 'late']) {
      const outcome = await agent.call('SendMessage', send(text));
      responses.push(outcome.raw);
      const task = outcome.result?.task;
      expect(task?.status.state).toBe('TASK_STATE_FAILED');
      expect(task?.status.message?.role).toBe('ROLE_AGENT');
      expect(textOf(task?.status.message).length).toBeGreaterThan(0);
      responses.push((await agent.call('GetTask', { id: task?.id ?? '' })).raw);
    }
    const stream = await agent.sendStreamingMessage(send('late'));
    const events = await stream.rest();
    expect(events.at(-1)?.response.statusUpdate?.status.state).toBe('TASK_STATE_FAILED');
    responses.push(...events.map((event) => event.raw));
    responses.push(
      (await agent.call('ListTasks', { historyLength: 10, includeArtifacts: true })).raw,
    );
    for (const raw of responses) {
      expect(raw).not.toContain('hunter2');
      expect(raw).not.toContain('/srv/secret');
      expect(raw).not.toMatch(/\bat .*\.(ts|js):\d+/);
    }
    // The error itself went to the log, where operators look for it.
    const logged = env.logs.filter(
      (e) => e.level === 'error' && (e.context as { err?: Error }).err?.message === secret,
    );
    expect(logged.length).toBeGreaterThanOrEqual(3);
  });
});
