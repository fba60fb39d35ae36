/**
 * Admitting messages, over the runtime and a scripted store: bad messages are refused before
 * anything begins; a new message begins a registered run; a message to a task continues it only
 * when the task is interrupted — never a second execution — with the errors clients rely on.
 */

import { describe, expect, it } from 'vitest';
import {
  ContentTypeNotSupportedError,
  InvalidParamsError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../src/protocol/errors.js';
import type { Message, SendMessageRequest, TaskState } from '../../src/protocol/generated/types.js';
import { defineAgent } from '../../src/runtime/agent.js';
import { createCallContext } from '../../src/runtime/call-context.js';
import { admitMessage, type IntakeContext } from '../../src/runtime/message-intake.js';
import type { TaskExecution } from '../../src/runtime/task-execution.js';
import type { TaskRuntimeEngine } from '../../src/runtime/task-runtime.js';
import { ScriptedStore } from './support/scripted-store.js';
import { owner, scope, startRuntime } from './support/runtime-harness.js';

const agent = defineAgent({
  card: {
    name: 'Intake',
    description: 'Admits messages',
    skills: [{ id: 's', name: 'S', description: 'S', tags: ['test'] }],
  },
  execute: () => undefined,
});

const caller = { call: createCallContext(), scope, extensions: [] };

function message(overrides: Partial<Message> = {}): SendMessageRequest {
  return {
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text: 'hi' }],
      ...overrides,
    },
  };
}

async function intake(): Promise<{
  store: ScriptedStore;
  runtime: TaskRuntimeEngine;
  context: IntakeContext;
}> {
  const store = new ScriptedStore();
  const runtime = await startRuntime(store);
  return {
    store,
    runtime,
    context: { agent, runtime, owner, inputModes: ['text/plain'], resumeWaitMs: 50 },
  };
}

async function seed(store: ScriptedStore, taskId: string, state: TaskState): Promise<void> {
  const task = {
    id: taskId,
    contextId: 'ctx',
    status: { state, timestamp: new Date().toISOString() },
    history: [],
  };
  await store.inner.createTask({
    scope,
    task,
    events: [{ seq: 1, payload: { task }, json: JSON.stringify({ task }) }],
  });
}

/** Admission as a promise: a new task's refusal is thrown at once, a continued one's rejected. */
async function admit(...args: Parameters<typeof admitMessage>): Promise<TaskExecution> {
  return admitMessage(...args);
}

describe('admitMessage', () => {
  it('refuses a message not sent by a user, naming the field, and begins nothing', async () => {
    const { context, runtime } = await intake();
    const refused = admit(context, caller, message({ role: 'ROLE_AGENT' }));
    await expect(refused).rejects.toBeInstanceOf(InvalidParamsError);
    await expect(refused).rejects.toThrow('message.role: must be ROLE_USER');
    expect(runtime.runsOf(owner)).toEqual([]);
  });

  it('leaves an inline push config to the request handler, which checks it before admission', async () => {
    // With push off the handler refuses it (PushNotificationNotSupportedError, see
    // e2e/capabilities); with push on it checks it and attaches it to the admitted task.
    const { context } = await intake();
    const request: SendMessageRequest = {
      ...message(),
      configuration: { taskPushNotificationConfig: { url: 'https://example.com/hook' } },
    };
    const execution = await admit(context, caller, request);
    expect(execution.taskId).toBeTruthy();
  });

  it('refuses a part of a media type the agent does not accept', async () => {
    const { context } = await intake();
    const request = message({ parts: [{ text: 'x', mediaType: 'image/png' }] });
    await expect(admit(context, caller, request)).rejects.toBeInstanceOf(
      ContentTypeNotSupportedError,
    );
  });

  it('begins a new task in the given context, its run registered', async () => {
    const { context, runtime } = await intake();
    const execution = await admit(context, caller, message({ contextId: 'mine' }));
    expect(execution.contextId).toBe('mine');
    expect(execution.task).toBeUndefined();
    expect(execution.run.seq).toBe(0);
    expect(runtime.runOf(execution.taskId)).toBe(execution.run);
  });

  it('answers TaskNotFound for a task it cannot see', async () => {
    const { context } = await intake();
    await expect(admit(context, caller, message({ taskId: 'nope' }))).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });

  it('refuses a contextId that is not the task’s', async () => {
    const { context, store } = await intake();
    await seed(store, 't1', 'TASK_STATE_INPUT_REQUIRED');
    const refused = admit(context, caller, message({ taskId: 't1', contextId: 'other' }));
    await expect(refused).rejects.toThrow(
      'message.contextId: does not match the contextId of task t1 (ctx)',
    );
  });

  it('refuses a message to a finished task, saying to start a new one', async () => {
    const { context, store } = await intake();
    await seed(store, 't1', 'TASK_STATE_COMPLETED');
    const refused = admit(context, caller, message({ taskId: 't1' }));
    await expect(refused).rejects.toBeInstanceOf(UnsupportedOperationError);
    await expect(refused).rejects.toThrow(
      'Task t1 is TASK_STATE_COMPLETED and accepts no more messages; start a new task in the same context',
    );
  });

  it('refuses a message to a task that is being worked on: never a second execution', async () => {
    const { context, store, runtime } = await intake();
    await seed(store, 't1', 'TASK_STATE_WORKING');
    const refused = admit(context, caller, message({ taskId: 't1' }));
    await expect(refused).rejects.toThrow(
      'Task t1 is still being worked on (TASK_STATE_WORKING); send the next message once it is TASK_STATE_INPUT_REQUIRED or TASK_STATE_AUTH_REQUIRED, or cancel it',
    );
    expect(runtime.runOf('t1')).toBeUndefined();
  });

  it('continues an interrupted task, whose history then ends with the message', async () => {
    const { context, store, runtime } = await intake();
    await seed(store, 't1', 'TASK_STATE_AUTH_REQUIRED');
    const request = message({ taskId: 't1' });
    const execution = await admit(context, caller, request);
    expect(execution.task?.status.state).toBe('TASK_STATE_WORKING');
    expect(execution.task?.history?.at(-1)?.messageId).toBe(request.message.messageId);
    expect(runtime.runOf('t1')).toBe(execution.run);
  });

  it('lets one of two racing messages continue the task and refuses the other', async () => {
    const { context, store } = await intake();
    await seed(store, 't1', 'TASK_STATE_INPUT_REQUIRED');
    const outcomes = await Promise.allSettled([
      admit(context, caller, message({ taskId: 't1' })),
      admit(context, caller, message({ taskId: 't1' })),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected');
    expect(refused?.status === 'rejected' ? refused.reason : undefined).toBeInstanceOf(
      UnsupportedOperationError,
    );
  });
});
