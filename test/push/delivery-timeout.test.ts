/**
 * A webhook that does not answer: the attempt is abandoned after the timeout (10 s, the least
 * spec 4.3.3 recommends) and retried with the same delivery id, while another config of another
 * task is delivered meanwhile, undelayed. And `tandem serve`: push on by default, off with
 * `--no-push`.
 */

import { describe, expect, it } from 'vitest';
import { testAgent } from '../support/agents.js';
import { useBehaviourEnv } from '../support/behaviour-env.js';
import { send } from '../support/messages.js';
import { CLI, SERVE_URL_LINE, requireBuild, serverProcesses } from '../support/processes.js';
import { payloadKinds, startWebhookReceiver } from '../support/webhook-receiver.js';

requireBuild();

describe('a webhook that does not answer', () => {
  const env = useBehaviourEnv({ binding: 'jsonrpc', store: 'sqlite' });

  it('is retried after the 10 s timeout with the same delivery id, and delays no other webhook', async () => {
    const { agent } = await env.serve(testAgent, { push: env.push({ timeoutMs: 10_000 }) });
    const hung = await startWebhookReceiver({
      responder: (_request, index) => (index === 0 ? 'hang' : { status: 204 }),
    });
    const healthy = await startWebhookReceiver();
    try {
      const slow = await agent.sendTask(
        send('ask', {}, { taskPushNotificationConfig: { url: hung.url } }),
      );
      await hung.received(1);
      const startedAt = Date.now();
      await agent.sendTask(send('ask', {}, { taskPushNotificationConfig: { url: healthy.url } }));
      await healthy.deliveredCount(2);
      expect(Date.now() - startedAt).toBeLessThan(5_000);
      await hung.deliveredCount(1);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(9_000);
      const ids = hung.requests.map((r) => r.headers['x-a2a-delivery-id']);
      expect(ids[1]).toBe(ids[0]);
      await hung.deliveredCount(2);
      expect(payloadKinds(hung.delivered)).toEqual(['task', 'status:TASK_STATE_INPUT_REQUIRED']);
      expect(hung.delivered[0]?.payload?.task?.id).toBe(slow.id);
    } finally {
      await Promise.all([hung.close(), healthy.close()]);
    }
  }, 30_000);
});

describe('tandem serve', () => {
  const processes = serverProcesses();

  const card = async (args: string[]) => {
    const { url } = await processes.start(
      [
        CLI,
        'serve',
        '--store',
        'memory',
        '--agent',
        'echo',
        '--port',
        '0',
        '--log-level',
        'silent',
        ...args,
      ],
      SERVE_URL_LINE,
    );
    const response = await fetch(`${url}/.well-known/agent-card.json`);
    return ((await response.json()) as { capabilities: { pushNotifications?: boolean } })
      .capabilities;
  };

  it('serves push notifications by default and not with --no-push', async () => {
    expect((await card([])).pushNotifications).toBe(true);
    expect(
      (await card(['--push-allow', '127.0.0.1', '--push-timeout', '20s'])).pushNotifications,
    ).toBe(true);
    expect((await card(['--no-push'])).pushNotifications).toBe(false);
  });
});
