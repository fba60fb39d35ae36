/**
 * Tenants of the HTTP+JSON binding: the `/{tenant}/` prefix scopes every task, so that a task
 * created under one tenant is invisible — to GetTask, ListTasks, CancelTask, SubscribeToTask and
 * to a message continuing it — under another tenant and without one. Run over every store, since
 * the store is what enforces the scope.
 */

import { describe, expect, it } from 'vitest';
import {
  isStoreAvailable,
  openStore,
  POSTGRES_SKIP_REASON,
  STORE_NAMES,
} from '../../support/stores.js';
import {
  createTask,
  createWaitingTask,
  errorInfoOf,
  expectA2AError,
  expectInvalidParams,
  get,
  post,
  sendBody,
  useRestServer,
  VERSION,
  type WireTask,
} from './support.js';

interface ListBody {
  tasks: WireTask[];
  nextPageToken: string;
  totalSize: number;
}

describe.each(STORE_NAMES)('tenant isolation over the %s store', (storeName) => {
  if (!isStoreAvailable(storeName)) {
    it.skip(POSTGRES_SKIP_REASON, () => undefined);
    return;
  }
  const server = useRestServer({ store: () => openStore(storeName) });

  const listIds = async (prefix: string, contextId: string): Promise<string[]> => {
    const response = await get(`${server.base}${prefix}/tasks?contextId=${contextId}`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    return (JSON.parse(text) as ListBody).tasks.map((task) => task.id);
  };

  /** Creates a completed task under `prefix` in a context of its own. */
  const createIn = async (prefix: string): Promise<WireTask> => {
    const contextId = `ctx-${storeName}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const response = await post(
      `${server.base}${prefix}/message:send`,
      sendBody('echo tenant', { message: { contextId } }),
    );
    const text = await response.text();
    expect(response.status, text).toBe(200);
    return (JSON.parse(text) as { task: WireTask }).task;
  };

  const owners = [
    ['tenant acme', '/acme', ['/globex', '', '/acme2', '/ACME']],
    ['no tenant', '', ['/acme', '/globex']],
    ['tenant "a/b c" (percent-encoded)', `/${encodeURIComponent('a/b c')}`, ['/a', '/b%20c', '']],
  ] as const;

  describe.each(owners)('a task of %s', (_name, owner, others) => {
    it('is read and listed under its own tenant', async () => {
      const task = await createIn(owner);
      const read = await get(`${server.base}${owner}/tasks/${task.id}`);
      expect(read.status).toBe(200);
      expect(((await read.json()) as WireTask).id).toBe(task.id);
      expect(await listIds(owner, task.contextId)).toEqual([task.id]);
    });

    it.each(others)('is not found under %j (GetTask, ListTasks)', async (other) => {
      const task = await createIn(owner);
      const response = await get(`${server.base}${other}/tasks/${task.id}`);
      const body = await expectA2AError(response, 404, 'TASK_NOT_FOUND');
      expect(errorInfoOf(body).metadata?.taskId).toBe(task.id);
      expect(await listIds(other, task.contextId)).toEqual([]);
    });

    it.each(others)('cannot be canceled, subscribed to or continued under %j', async (other) => {
      const task = await createWaitingTask(server.base, owner);
      const cancel = await post(`${server.base}${other}/tasks/${task.id}:cancel`, '{}');
      await expectA2AError(cancel, 404, 'TASK_NOT_FOUND');
      for (const method of ['GET', 'POST']) {
        const subscribe = await fetch(`${server.base}${other}/tasks/${task.id}:subscribe`, {
          method,
          headers: VERSION,
        });
        await expectA2AError(subscribe, 404, 'TASK_NOT_FOUND');
      }
      const resume = await fetch(`${server.base}${other}/tasks/${task.id}:subscribe`, {
        headers: { ...VERSION, 'last-event-id': '1' },
      });
      await expectA2AError(resume, 404, 'TASK_NOT_FOUND');
      const continued = await post(
        `${server.base}${other}/message:send`,
        sendBody('echo hijack', { message: { taskId: task.id } }),
      );
      await expectA2AError(continued, 404, 'TASK_NOT_FOUND');
      const read = (await (
        await get(`${server.base}${owner}/tasks/${task.id}`)
      ).json()) as WireTask;
      expect(read.status.state).toBe('TASK_STATE_WORKING');
      expect(read.history).toHaveLength(1);
      const done = await post(`${server.base}${owner}/tasks/${task.id}:cancel`, '{}');
      expect(done.status).toBe(200);
    });
  });

  it('keeps tasks of one context apart per tenant', async () => {
    const contextId = `ctx-shared-${storeName}-${Date.now()}`;
    const inTenant = async (prefix: string): Promise<string> => {
      const response = await post(
        `${server.base}${prefix}/message:send`,
        sendBody('echo same context', { message: { contextId } }),
      );
      expect(response.status).toBe(200);
      return ((await response.json()) as { task: WireTask }).task.id;
    };
    const acme = await inTenant('/acme');
    const globex = await inTenant('/globex');
    const none = await inTenant('');
    expect(await listIds('/acme', contextId)).toEqual([acme]);
    expect(await listIds('/globex', contextId)).toEqual([globex]);
    expect(await listIds('', contextId)).toEqual([none]);
  });

  it('refuses the page token of one tenant’s listing under another tenant', async () => {
    const contextId = `ctx-pages-${storeName}-${Date.now()}`;
    for (let i = 0; i < 2; i++) {
      const response = await post(
        `${server.base}/acme/message:send`,
        sendBody('echo page', { message: { contextId } }),
      );
      expect(response.status).toBe(200);
    }
    const first = (await (
      await get(`${server.base}/acme/tasks?contextId=${contextId}&pageSize=1`)
    ).json()) as ListBody;
    expect(first.nextPageToken).not.toBe('');
    const token = encodeURIComponent(first.nextPageToken);
    const own = await get(
      `${server.base}/acme/tasks?contextId=${contextId}&pageSize=1&pageToken=${token}`,
    );
    expect(own.status).toBe(200);
    const other = await get(
      `${server.base}/globex/tasks?contextId=${contextId}&pageSize=1&pageToken=${token}`,
    );
    expect(await expectInvalidParams(other)).toEqual(['pageToken']);
  });

  it('creates the task under the tenant of the path for a task id the client sends', async () => {
    const task = await createTask(server.base, 'ask', { prefix: '/acme' });
    const next = await post(
      `${server.base}/acme/message:send`,
      sendBody('ask', { message: { taskId: task.id, contextId: task.contextId } }),
    );
    expect(next.status).toBe(200);
    expect(((await next.json()) as { task: WireTask }).task.id).toBe(task.id);
  });
});
