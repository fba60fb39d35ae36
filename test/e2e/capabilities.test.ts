/**
 * Capability validation end to end (spec 3.3.4): what an agent's card does not declare is refused
 * with the spec's error — streaming (-32004), push notifications (-32003), the extended card
 * (-32004 / -32007), required extensions (-32008) — and nothing runs or is stored.
 */

import { expect, it } from 'vitest';
import type { AgentCard } from '../../src/index.js';
import { defineAgent } from '../../src/server.js';
import { testCard } from './support/agents.js';
import { result, send } from './support/json-rpc.js';
import { describeStores } from './support/server.js';

const REQUIRED_EXTENSION = 'https://example.com/ext/required/v1';
const OPTIONAL_EXTENSION = 'https://example.com/ext/optional/v1';

async function publicCard(baseUrl: string): Promise<AgentCard> {
  const response = await fetch(`${baseUrl}/.well-known/agent-card.json`);
  return (await response.json()) as AgentCard;
}

describeStores('Capability validation', (env) => {
  it('refuses SendStreamingMessage and SubscribeToTask with -32004 when streaming is off', async () => {
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
    expect((await publicCard(server.url)).capabilities.streaming).toBe(false);
    const { agent } = server;
    const streaming = await agent.error('SendStreamingMessage', send('go'));
    expect(streaming.code).toBe(-32004);
    expect(executions).toBe(0);
    const task = await agent.sendTask(send('go'));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await agent.error('SubscribeToTask', { id: task.id })).code).toBe(-32004);
    expect(
      (await agent.error('SendStreamingMessage', send('resume', { taskId: task.id }))).code,
    ).toBe(-32004);
    expect(executions).toBe(1);
    expect((await agent.getTask(task.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('refuses the four push-notification methods and a push config in SendMessage with -32003', async () => {
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
    expect((await publicCard(server.url)).capabilities.pushNotifications).toBe(false);
    const { agent } = server;
    const task = await agent.sendTask(send('go'));
    const url = 'https://client.example.com/webhook/a2a';
    const calls: [string, unknown][] = [
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url }],
      ['GetTaskPushNotificationConfig', { taskId: task.id, id: 'push-1' }],
      ['ListTaskPushNotificationConfigs', { taskId: task.id }],
      ['DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'push-1' }],
    ];
    for (const [method, params] of calls) {
      expect((await agent.error(method, params)).code, method).toBe(-32003);
    }
    const pushConfig = { taskPushNotificationConfig: { url } };
    expect((await agent.error('SendMessage', send('again', {}, pushConfig))).code).toBe(-32003);
    expect((await agent.error('SendStreamingMessage', send('again', {}, pushConfig))).code).toBe(
      -32003,
    );
    expect(
      (await agent.error('SendMessage', send('resume', { taskId: task.id }, pushConfig))).code,
    ).toBe(-32003);
    expect(executions).toBe(1);
    expect((await agent.listTasks()).totalSize).toBe(1);
    expect((await agent.getTask(task.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('answers GetExtendedAgentCard with -32004 unless declared, -32007 unless configured, else the card', async () => {
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
    expect((await server.endpoint('/plain').error('GetExtendedAgentCard')).code).toBe(-32004);
    expect((await server.endpoint('/declared').error('GetExtendedAgentCard')).code).toBe(-32007);
    const card = await result<AgentCard>(server.endpoint('/extended').url, 'GetExtendedAgentCard');
    expect(card.description).toBe('The extended card, for authenticated callers');
    expect(card.skills.map((skill) => skill.id)).toEqual(['public', 'secret']);
    expect(card.capabilities.extendedAgentCard).toBe(true);
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual([
      server.endpoint('/extended').url,
      server.endpoint('/extended').url.replace(/\/a2a$/, ''),
    ]);
  });

  it('refuses a call without a required extension with -32008, and activates the requested ones', async () => {
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
    const refused = await agent.error('SendMessage', send('go'), {
      headers: { 'a2a-extensions': OPTIONAL_EXTENSION },
    });
    expect(refused.code).toBe(-32008);
    expect(refused.message).toContain(REQUIRED_EXTENSION);
    expect((await agent.error('SendStreamingMessage', send('go'))).code).toBe(-32008);
    expect((await agent.error('ListTasks', {})).code).toBe(-32008);
    expect(executions).toBe(0);
    const headers = {
      'a2a-extensions': `${REQUIRED_EXTENSION}, ${OPTIONAL_EXTENSION}, https://example.com/unknown`,
    };
    const accepted = await agent.call<{
      task: { status: { message: { parts: { text: string }[] } } };
    }>('SendMessage', send('go'), { headers });
    expect(accepted.result?.task.status.message.parts[0]?.text).toBe(
      `extensions: ${REQUIRED_EXTENSION} ${OPTIONAL_EXTENSION}`,
    );
    expect(accepted.headers.get('a2a-extensions')).toBe(
      `${REQUIRED_EXTENSION}, ${OPTIONAL_EXTENSION}`,
    );
    expect(executions).toBe(1);
  });
});
