/**
 * An A2A error an agent throws before its first task change refuses the message: the call is
 * answered with it and no task is created. Thrown later, it fails the task like any error.
 */

import { describe, expect, it } from 'vitest';
import { ContentTypeNotSupportedError } from '../../src/index.js';
import { defineAgent } from '../../src/server.js';
import { call, collect, handlerFor, request } from '../agents/agent-harness.js';
import { rejection } from '../support/a2a-errors.js';

const refusing = defineAgent({
  card: { name: 'Refusing', description: 'Refuses', skills: [] },
  async execute(ctx) {
    if (ctx.text === 'later') {
      await ctx.working();
      throw new ContentTypeNotSupportedError('too late to refuse');
    }
    throw new ContentTypeNotSupportedError('message.parts[0] is not for me');
  },
});

describe('an agent refusing a message', () => {
  const handler = handlerFor(refusing);

  it('answers SendMessage and SendStreamingMessage with the error, creating no task', async () => {
    const sent = await rejection(
      handler.sendMessage(call, request('no')),
      ContentTypeNotSupportedError,
    );
    expect(sent.message).toBe('message.parts[0] is not for me');
    await rejection(
      handler.sendStreamingMessage(call, request('no')),
      ContentTypeNotSupportedError,
    );
    const listed = await handler.listTasks(call, {});
    expect(listed.tasks).toHaveLength(0);
  });

  it('fails the task when it throws after a task change', async () => {
    const answer = await handler.sendMessage(call, request('later'));
    expect(answer.task?.status.state).toBe('TASK_STATE_FAILED');
    const stream = await handler.sendStreamingMessage(call, request('later'));
    const events = await collect(stream);
    expect(events.at(-1)?.payload.statusUpdate?.status.state).toBe('TASK_STATE_FAILED');
  });
});
