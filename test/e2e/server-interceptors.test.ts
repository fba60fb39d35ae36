/**
 * Server interceptors (`ServerInterceptor` of `tandem/server`) on every binding and store: one
 * interceptor sees every operation once it has answered — its binding, agent and service
 * parameters —, a failure as the call's outcome, a stream's every event and its end, and a client
 * that cancels its stream; and the async context an interceptor runs `next` in is the one the
 * agent's execution runs in, for unary, streaming and `returnImmediately` calls, also after the
 * response has gone, and for the execution that resumes an interrupted task.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { beforeAll, expect, it } from 'vitest';
import { TaskNotFoundError } from '../../src/index.js';
import { defineAgent, type ServerInterceptor } from '../../src/server.js';
import { rejection } from '../support/a2a-errors.js';
import { testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import { PROTOCOL_BINDINGS } from '../support/drivers/bindings.js';
import type { InProcessServer } from '../support/in-process-server.js';
import { send } from '../support/messages.js';
import { RecordingInterceptor } from '../support/recording-interceptor.js';
import { deferred, type Deferred } from '../support/sync.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** What the context interceptor puts in the async context: the tag of the call. */
const context = new AsyncLocalStorage<string>();

/** Runs every call in an async context holding its tag, as a tracing interceptor would. */
const inContext: ServerInterceptor = (next) => (operation, call, request) =>
  context.run(call.serviceParameters.get('x-e2e-tag') ?? 'untagged', () =>
    next(operation, call, request),
  );

/** The context the agent saw, by the message text: at its start, and later. */
const seen = new Map<string, Deferred<{ start: string | undefined; later: string | undefined }>>();
const seenBy = (text: string) => {
  let entry = seen.get(text);
  if (entry === undefined) {
    entry = deferred();
    seen.set(text, entry);
  }
  return entry;
};
/** What `later <key>` waits for before it writes again. */
const gates = new Map<string, Deferred<void>>();
const gate = (key: string): Deferred<void> => {
  let entry = gates.get(key);
  if (entry === undefined) {
    entry = deferred();
    gates.set(key, entry);
  }
  return entry;
};

/**
 * `echo <s>`: completes; `stream <n>`: n artifacts; `wait`: works until canceled; `later <key>`:
 * works, waits for the gate of `<key>`, writes an artifact and completes; `ask <key>`: asks for
 * input, and the next message completes. Each records the async context it saw, at its start and
 * after its last write.
 */
const contextAgent = defineAgent({
  card: testCard('Context'),
  extendedCard: testCard('Context (extended)'),
  async execute(ctx) {
    const start = context.getStore();
    const [command = '', key = ''] = ctx.text.split(' ');
    if (ctx.task !== undefined) {
      await ctx.artifact(`resumed by ${ctx.text}`);
      seenBy(ctx.text).resolve({ start, later: context.getStore() });
      return ctx.complete();
    }
    switch (command) {
      case 'echo':
        await ctx.artifact(key);
        seenBy(ctx.text).resolve({ start, later: context.getStore() });
        return ctx.complete();
      case 'stream':
        await ctx.working();
        for (let i = 0; i < Number(key); i++) await ctx.artifact(`chunk ${i}`);
        seenBy(ctx.text).resolve({ start, later: context.getStore() });
        return ctx.complete();
      case 'wait':
        await ctx.working();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return;
      case 'later':
        await ctx.working();
        await gate(key).promise;
        await ctx.artifact('later');
        seenBy(ctx.text).resolve({ start, later: context.getStore() });
        return ctx.complete();
      case 'ask':
        seenBy(ctx.text).resolve({ start, later: context.getStore() });
        return ctx.inputRequired('and then?');
      default:
        return ctx.reply(`unknown ${command}`);
    }
  },
});

describeBehaviour('server interceptors', (env) => {
  const recorder = new RecordingInterceptor();
  let server: InProcessServer;
  let hook: WebhookReceiver;
  let tags = 0;
  const tagged = (name: string) => ({ tag: `${env.binding}-${env.store}-${name}-${tags++}` });

  beforeAll(async () => {
    hook = await startWebhookReceiver();
    server = await env.serve(contextAgent, {
      interceptors: [inContext, recorder.interceptor],
      push: env.push(),
    });
    return () => hook.close();
  });

  it('sees every operation with its binding and agent, once it has answered', async () => {
    const { agent } = server;
    const expectRecorded = async (operation: string, tag: string): Promise<void> => {
      expect(await recorder.ended(tag)).toMatchObject({
        operation,
        binding: PROTOCOL_BINDINGS[env.binding],
        compatVersion: undefined,
        protocolVersion: '1.0',
        agentPath: '',
        agentName: 'Context',
        principal: 'anonymous',
        outcome: operation === 'SendStreamingMessage' ? 'completed' : 'answered',
      });
    };
    const sent = tagged('SendMessage');
    const task = await agent.sendTask(send('ask first'), sent);
    await expectRecorded('SendMessage', sent.tag);
    const unary: Array<[string, (options: { tag: string }) => Promise<unknown>]> = [
      ['GetTask', (o) => agent.getTask({ id: task.id }, o)],
      ['ListTasks', (o) => agent.listTasks({}, o)],
      ['GetExtendedAgentCard', (o) => agent.getExtendedAgentCard({}, o)],
    ];
    for (const [operation, call] of unary) {
      const options = tagged(operation);
      await call(options);
      await expectRecorded(operation, options.tag);
    }
    const creating = tagged('CreateTaskPushNotificationConfig');
    const config = await agent.createTaskPushNotificationConfig(
      { taskId: task.id, url: hook.url },
      creating,
    );
    await expectRecorded('CreateTaskPushNotificationConfig', creating.tag);
    const id = config.id ?? '';
    const configCalls: Array<[string, (options: { tag: string }) => Promise<unknown>]> = [
      [
        'GetTaskPushNotificationConfig',
        (o) => agent.getTaskPushNotificationConfig({ taskId: task.id, id }, o),
      ],
      [
        'ListTaskPushNotificationConfigs',
        (o) => agent.listTaskPushNotificationConfigs({ taskId: task.id }, o),
      ],
      [
        'DeleteTaskPushNotificationConfig',
        (o) => agent.deleteTaskPushNotificationConfig({ taskId: task.id, id }, o),
      ],
      ['CancelTask', (o) => agent.cancelTask({ id: task.id }, o)],
    ];
    for (const [operation, call] of configCalls) {
      const options = tagged(operation);
      await call(options);
      await expectRecorded(operation, options.tag);
    }
    const streamed = tagged('SendStreamingMessage');
    await (await agent.sendStreamingMessage(send('stream 1'), streamed)).rest();
    await expectRecorded('SendStreamingMessage', streamed.tag);
    // SubscribeToTask, on a task that is still running.
    const running = await agent.sendStreamingMessage(send('wait'), tagged('opened'));
    const [first] = await running.take(1);
    const subscribed = tagged('SubscribeToTask');
    const subscription = await agent.subscribeToTask(
      { id: first?.response.task?.id ?? '' },
      subscribed,
    );
    await subscription.take(1);
    await agent.cancelTask({ id: first?.response.task?.id ?? '' });
    await Promise.all([subscription.rest(), running.rest()]);
    expect(await recorder.ended(subscribed.tag)).toMatchObject({
      operation: 'SubscribeToTask',
      outcome: 'completed',
    });
  });

  it('sees a failure as the outcome of the call, with what it was refused with', async () => {
    const options = tagged('missing');
    await rejection(server.agent.getTask({ id: 'no-such-task' }, options), TaskNotFoundError);
    const record = await recorder.ended(options.tag);
    expect(record.outcome).toBe('failed');
    expect(record.error).toBeInstanceOf(TaskNotFoundError);
  });

  it("sees a stream's every event, then its end", async () => {
    const options = tagged('stream');
    const events = await (
      await server.agent.sendStreamingMessage(send('stream 3'), options)
    ).rest();
    const record = await recorder.ended(options.tag);
    expect(record.outcome).toBe('completed');
    expect(record.events).toEqual(events.map((event) => Object.keys(event.response)[0]));
    expect(record.events).toEqual([
      'task',
      'statusUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
  });

  it('sees the client cancel its stream, while the task goes on', async () => {
    const options = tagged('cancel');
    const stream = await server.agent.sendStreamingMessage(send('wait'), options);
    const [first] = await stream.take(2);
    stream.close();
    const record = await recorder.ended(options.tag);
    expect(record.outcome).toBe('canceled');
    expect(record.events).toEqual(['task', 'statusUpdate']);
    const taskId = first?.response.task?.id ?? '';
    expect((await server.agent.getTask({ id: taskId })).status.state).toBe('TASK_STATE_WORKING');
    await server.agent.cancelTask({ id: taskId });
  });

  it('runs the execution of a unary call in the context the interceptor called next in', async () => {
    const options = tagged('unary');
    await server.agent.sendTask(send(`echo ${options.tag}`), options);
    expect(await seenBy(`echo ${options.tag}`).promise).toEqual({
      start: options.tag,
      later: options.tag,
    });
  });

  it('runs the execution of a stream in the context of its call', async () => {
    const options = tagged('streamed');
    const text = `stream 2 ${options.tag}`;
    await (await server.agent.sendStreamingMessage(send(text), options)).rest();
    expect(await seenBy(text).promise).toEqual({ start: options.tag, later: options.tag });
  });

  it('keeps the context for an execution that outlives its returnImmediately call', async () => {
    const options = tagged('immediate');
    const text = `later ${options.tag}`;
    const task = await server.agent.sendTask(send(text, {}, { returnImmediately: true }), options);
    expect(task.status.state).not.toBe('TASK_STATE_COMPLETED');
    // The response has gone; other calls, in contexts of their own, come and go meanwhile.
    await server.agent.getTask({ id: task.id }, tagged('between'));
    gate(options.tag).resolve();
    expect(await seenBy(text).promise).toEqual({ start: options.tag, later: options.tag });
  });

  it('runs the execution that resumes a task in the context of the message that resumed it', async () => {
    const asked = tagged('asked');
    const task = await server.agent.sendTask(send(`ask ${asked.tag}`), asked);
    const resumed = tagged('resumed');
    await server.agent.sendTask(send(resumed.tag, { taskId: task.id }), resumed);
    expect(await seenBy(`ask ${asked.tag}`).promise).toEqual({
      start: asked.tag,
      later: asked.tag,
    });
    expect(await seenBy(resumed.tag).promise).toEqual({
      start: resumed.tag,
      later: resumed.tag,
    });
  });
});
