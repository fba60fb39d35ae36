/**
 * Capability validation end to end (spec 3.3.4): what an agent's card does not declare is refused
 * with the spec's error — streaming (UnsupportedOperation), push notifications
 * (PushNotificationNotSupported), the extended card (UnsupportedOperation /
 * ExtendedAgentCardNotConfigured), required extensions (ExtensionSupportRequired) — and nothing
 * runs or is stored; requested extensions the agent supports are activated. Over every binding,
 * against every store.
 */

import { expect, it } from 'vitest';
import {
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
} from '../../src/index.js';
import { defineAgent } from '../../src/server.js';
import { rejection } from '../support/a2a-errors.js';
import { OPTIONAL_EXTENSION, REQUIRED_EXTENSION, testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import { fetchCard } from '../support/drivers/bindings.js';
import { send, textOf } from '../support/messages.js';

describeBehaviour('Capability validation', (env) => {
  it('refuses SendStreamingMessage and SubscribeToTask with UnsupportedOperation when streaming is off', async () => {
    let executions = 0;
    const server = await env.serve(
      defineAgent({
        card: testCard('No streaming', { capabilities: { streaming: false } }),
        execute: (ctx) => {
          executions++;
          return ctx.inputRequired('more?');
        },
      }),
    );
    expect((await fetchCard(server.url)).capabilities.streaming).toBe(false);
    const { agent } = server;
    await rejection(agent.sendStreamingMessage(send('go')), UnsupportedOperationError);
    expect(executions).toBe(0);
    const task = await agent.sendTask(send('go'));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await rejection(agent.subscribeToTask({ id: task.id }), UnsupportedOperationError);
    await rejection(
      agent.sendStreamingMessage(send('resume', { taskId: task.id })),
      UnsupportedOperationError,
    );
    expect(executions).toBe(1);
    expect((await agent.getTask({ id: task.id })).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('refuses the four push-notification operations and a push config in SendMessage with PushNotificationNotSupported', async () => {
    let executions = 0;
    const server = await env.serve(
      defineAgent({
        // Declared, but this server cannot deliver push notifications: it serves `false`.
        card: testCard('Push', { capabilities: { pushNotifications: true } }),
        execute: (ctx) => {
          executions++;
          return ctx.inputRequired('more?');
        },
      }),
    );
    expect((await fetchCard(server.url)).capabilities.pushNotifications).toBe(false);
    const { agent } = server;
    const task = await agent.sendTask(send('go'));
    const url = 'https://client.example.com/webhook/a2a';
    const calls: [string, () => Promise<unknown>][] = [
      ['Create', () => agent.createTaskPushNotificationConfig({ taskId: task.id, url })],
      ['Get', () => agent.getTaskPushNotificationConfig({ taskId: task.id, id: 'push-1' })],
      ['List', () => agent.listTaskPushNotificationConfigs({ taskId: task.id })],
      ['Delete', () => agent.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'push-1' })],
    ];
    for (const [operation, call] of calls) {
      const error = await rejection(call(), PushNotificationNotSupportedError);
      expect(error.type, operation).toBe('PushNotificationNotSupportedError');
    }
    const pushConfig = { taskPushNotificationConfig: { url } };
    await rejection(
      agent.sendMessage(send('again', {}, pushConfig)),
      PushNotificationNotSupportedError,
    );
    await rejection(
      agent.sendStreamingMessage(send('again', {}, pushConfig)),
      PushNotificationNotSupportedError,
    );
    await rejection(
      agent.sendMessage(send('resume', { taskId: task.id }, pushConfig)),
      PushNotificationNotSupportedError,
    );
    expect(executions).toBe(1);
    expect((await agent.listTasks()).totalSize).toBe(1);
    expect((await agent.getTask({ id: task.id })).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('answers GetExtendedAgentCard with UnsupportedOperation unless declared, ExtendedAgentCardNotConfigured unless configured, else the card', async () => {
    const plain = defineAgent({ card: testCard('Plain'), execute: (ctx) => ctx.complete() });
    const declaredOnly = defineAgent({
      card: testCard('Declared only', { capabilities: { extendedAgentCard: true } }),
      execute: (ctx) => ctx.complete(),
    });
    const extended = defineAgent({
      card: testCard('Extended', { capabilities: { extendedAgentCard: true } }),
      extendedCard: testCard('Extended', {
        description: 'The extended card, for authenticated callers',
        skills: [
          { id: 'public', name: 'Public', description: 'Everyone sees it', tags: ['a'] },
          { id: 'secret', name: 'Secret', description: 'Only here', tags: ['b'] },
        ],
      }),
      execute: (ctx) => ctx.complete(),
    });
    const server = await env.serve([
      { path: '/plain', agent: plain },
      { path: '/declared', agent: declaredOnly },
      { path: '/extended', agent: extended },
    ]);
    await rejection(server.endpoint('/plain').getExtendedAgentCard(), UnsupportedOperationError);
    await rejection(
      server.endpoint('/declared').getExtendedAgentCard(),
      ExtendedAgentCardNotConfiguredError,
    );
    const driver = server.endpoint('/extended');
    const card = await driver.getExtendedAgentCard();
    expect(card.description).toBe('The extended card, for authenticated callers');
    expect(card.skills.map((skill) => skill.id)).toEqual(['public', 'secret']);
    expect(card.capabilities.extendedAgentCard).toBe(true);
    // The extended card offers the interfaces of the public one, this driver's among them.
    const publicCard = await fetchCard(`${server.url}/extended`);
    expect(card.supportedInterfaces).toEqual(publicCard.supportedInterfaces);
    expect(card.supportedInterfaces.map((i) => i.url)).toContain(driver.url);
  });

  it('refuses a call without a required extension with ExtensionSupportRequired, and activates the requested ones', async () => {
    let executions = 0;
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Extensions', {
          capabilities: {
            extensions: [
              { uri: REQUIRED_EXTENSION, required: true },
              { uri: OPTIONAL_EXTENSION, required: false },
            ],
          },
        }),
        execute: (ctx) => {
          executions++;
          return ctx.complete(`extensions: ${ctx.extensions.join(' ')}`);
        },
      }),
    );
    const refused = await rejection(
      agent.sendMessage(send('go'), { extensions: [OPTIONAL_EXTENSION] }),
      ExtensionSupportRequiredError,
    );
    expect(refused.message).toContain(REQUIRED_EXTENSION);
    await rejection(agent.sendStreamingMessage(send('go')), ExtensionSupportRequiredError);
    await rejection(agent.listTasks({}), ExtensionSupportRequiredError);
    expect(executions).toBe(0);
    const extensions = [REQUIRED_EXTENSION, OPTIONAL_EXTENSION, 'https://example.com/unknown'];
    const accepted = await agent.call('SendMessage', send('go'), { extensions });
    expect(accepted.error).toBeUndefined();
    expect(textOf(accepted.result?.task?.status.message)).toBe(
      `extensions: ${REQUIRED_EXTENSION} ${OPTIONAL_EXTENSION}`,
    );
    expect(accepted.activatedExtensions).toEqual([REQUIRED_EXTENSION, OPTIONAL_EXTENSION]);
    expect(executions).toBe(1);
    // A stream announces what it activated when it opens.
    const stream = await agent.sendStreamingMessage(send('go'), { extensions });
    expect(stream.activatedExtensions).toEqual([REQUIRED_EXTENSION, OPTIONAL_EXTENSION]);
    const events = await stream.rest();
    expect(textOf(events.at(-1)?.response.statusUpdate?.status.message)).toBe(
      `extensions: ${REQUIRED_EXTENSION} ${OPTIONAL_EXTENSION}`,
    );
    expect(executions).toBe(2);
  });
});
