/**
 * Push deliveries survive crashes. Servers run as child processes (the replica fixture, with
 * push on); the webhook receiver is down while the task runs, so every delivery is pending when
 * the server is killed with SIGKILL. Once the receiver is back, a restarted server (SQLite) or
 * the surviving replica (PostgreSQL, taking over the dead one's claim) delivers every event, in
 * order. With two live replicas on PostgreSQL, each delivery is made by one of them only.
 */

import { afterEach, expect, it } from 'vitest';
import { connectDriver } from '../support/drivers/bindings.js';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import { describeMatrix } from '../support/matrix.js';
import { send } from '../support/messages.js';
import {
  REPLICA_SERVER,
  REPLICA_URL_LINE,
  requireBuild,
  serverProcesses,
  type ServerProcess,
} from '../support/processes.js';
import { testStoreSpec, type TestStoreSpec } from '../support/stores.js';
import {
  payloadKinds,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver.js';

requireBuild();

const EVENTS = [
  'task',
  'status:TASK_STATE_WORKING',
  ...Array<string>(4).fill('artifact'),
  'status:TASK_STATE_COMPLETED',
];

describeMatrix(
  'push deliveries across a crash',
  ({ store }) => {
    const processes = serverProcesses();
    let spec: TestStoreSpec | undefined;
    const receivers: WebhookReceiver[] = [];

    afterEach(async () => {
      await processes.killAll();
      await Promise.all(receivers.splice(0).map((r) => r.close()));
      await spec?.cleanup();
      spec = undefined;
    });

    const replica = async (name: string): Promise<{ process: ServerProcess; agent: A2ADriver }> => {
      const started = await processes.start(
        [REPLICA_SERVER, '--store', (spec as TestStoreSpec).argument, '--name', name, '--push'],
        REPLICA_URL_LINE,
      );
      return { process: started.process, agent: await connectDriver('jsonrpc', started.url) };
    };

    /** A port with nothing listening on it (a receiver started there and closed again). */
    const downPort = async (): Promise<number> => {
      const probe = await startWebhookReceiver();
      await probe.close();
      return probe.port;
    };

    /** Runs a task of 4 chunks to completion while its webhook is down. */
    const runWhileDown = async (
      server: { process: ServerProcess; agent: A2ADriver },
      port: number,
    ): Promise<string> => {
      // Blocking: it answers once the task is COMPLETED, all of its events stored.
      const task = await server.agent.sendTask(
        send(
          'tick 5 4',
          {},
          {
            taskPushNotificationConfig: {
              url: `http://127.0.0.1:${port}/hook`,
              token: 'durable-token',
            },
          },
        ),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      return task.id;
    };

    it('delivers every pending event after kill -9, in order, once the receiver is back', async () => {
      spec = await testStoreSpec(store);
      const port = await downPort();
      const first = await replica('A');
      // On PostgreSQL a second replica is running all along and takes the dead one's deliveries
      // over; on SQLite (one process per file) the server is restarted on the same file.
      const second = store === 'postgres' ? await replica('B') : undefined;
      const taskId = await runWhileDown(first, port);
      await first.process.kill9();
      const hook = await startWebhookReceiver({ port });
      receivers.push(hook);
      const survivor = second ?? (await replica('A again'));
      await hook.deliveredCount(EVENTS.length);
      expect(payloadKinds(hook.delivered)).toEqual(EVENTS);
      for (const request of hook.delivered) {
        expect(request.headers['x-a2a-notification-token']).toBe('durable-token');
        expect(
          request.payload?.statusUpdate?.taskId ??
            request.payload?.artifactUpdate?.taskId ??
            request.payload?.task?.id,
        ).toBe(taskId);
      }
      const chunks = hook.delivered
        .map((r) => r.payload?.artifactUpdate?.artifact.parts[0]?.text ?? '')
        .filter((text) => text !== '')
        .map((text) => text.split(' ')[0]);
      expect(chunks).toEqual(['chunk-0', 'chunk-1', 'chunk-2', 'chunk-3']);
      expect((await survivor.agent.getTask({ id: taskId })).status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
    });

    if (store === 'postgres') {
      it('makes each delivery from one replica only while both are alive', async () => {
        spec = await testStoreSpec(store);
        const hook = await startWebhookReceiver();
        receivers.push(hook);
        const a = await replica('A');
        const b = await replica('B');
        const tasks = 6;
        for (let i = 0; i < tasks; i++) {
          const via = i % 2 === 0 ? a : b;
          await via.agent.sendTask(
            send('echo hi', {}, { taskPushNotificationConfig: { url: hook.url } }),
          );
        }
        // Each echo task: the snapshot, its artifact and COMPLETED (a task created in one write
        // may carry WORKING too): wait for every COMPLETED.
        for (let n = 1; ; n++) {
          await hook.received(n);
          if (
            payloadKinds(hook.requests).filter((k) => k === 'status:TASK_STATE_COMPLETED')
              .length === tasks
          )
            break;
        }
        const ids = hook.requests.map((r) => String(r.headers['x-a2a-delivery-id']));
        expect(new Set(ids).size).toBe(ids.length);
      });
    }
  },
  { bindings: ['jsonrpc'], stores: ['sqlite', 'postgres'] },
);
