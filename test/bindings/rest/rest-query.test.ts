/**
 * Request fields of GET and DELETE routes as query parameters (spec 11.5): camelCase names and
 * the proto names, booleans, integers and enums, one field given twice, invalid values, URL
 * encoding of path and query values, and `A2A-Version` as a query parameter (spec 3.6.1).
 */

import { beforeAll, describe, expect, it } from 'vitest';
import {
  createTask,
  createWaitingTask,
  errorInfoOf,
  expectA2AError,
  expectError,
  expectInvalidParams,
  get,
  post,
  readSse,
  sendBody,
  useRestServer,
  VERSION,
  type StatusBody,
  type WireTask,
} from './support.js';

const server = useRestServer();

interface ListBody {
  tasks: WireTask[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

async function list(query: string): Promise<ListBody> {
  const response = await get(`${server.base}/tasks?${query}`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as ListBody;
}

async function getTask(id: string, query: string): Promise<WireTask> {
  const response = await get(`${server.base}/tasks/${id}?${query}`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as WireTask;
}

/** A context of its own: two completed tasks with artifacts, one working, one asking. */
const contextId = `ctx-query-${Date.now()}`;
let completed: WireTask[] = [];
let working: WireTask;
let asking: WireTask;

beforeAll(async () => {
  const inContext = (text: string, configuration?: Record<string, unknown>) =>
    post(
      `${server.base}/message:send`,
      sendBody(text, { message: { contextId }, ...(configuration ? { configuration } : {}) }),
    ).then(async (response) => {
      expect(response.status).toBe(200);
      return ((await response.json()) as { task: WireTask }).task;
    });
  completed = [await inContext('echo one'), await inContext('echo two')];
  working = await inContext('wait', { returnImmediately: true });
  const first = await inContext('ask');
  // A second turn on the same task, so that its history holds several messages.
  const second = await post(
    `${server.base}/message:send`,
    sendBody('ask', { message: { contextId, taskId: first.id } }),
  );
  expect(second.status).toBe(200);
  asking = ((await second.json()) as { task: WireTask }).task;
});

describe('field names', () => {
  it.each(['historyLength', 'history_length'])(
    'GET /tasks/{id}?%s=N limits the history to the last N messages',
    async (name) => {
      const full = await getTask(asking.id, '');
      expect(full.history?.length).toBeGreaterThanOrEqual(3);
      const one = await getTask(asking.id, `${name}=1`);
      expect(one.history).toEqual(full.history?.slice(-1));
      const none = await getTask(asking.id, `${name}=0`);
      expect(none.history ?? []).toEqual([]);
    },
  );

  it.each(['contextId', 'context_id'])('GET /tasks?%s= filters by context', async (name) => {
    const body = await list(`${name}=${contextId}`);
    expect(body.tasks.map((task) => task.id).sort()).toEqual(
      [...completed.map((task) => task.id), working.id, asking.id].sort(),
    );
    expect(body.totalSize).toBe(4);
  });

  it.each(['pageSize', 'page_size'])('GET /tasks?%s= sets the page size', async (name) => {
    const body = await list(`contextId=${contextId}&${name}=1`);
    expect(body.tasks).toHaveLength(1);
    expect(body.pageSize).toBe(1);
    expect(body.totalSize).toBe(4);
    expect(body.nextPageToken).not.toBe('');
    const next = await list(
      `contextId=${contextId}&${name}=1&pageToken=${encodeURIComponent(body.nextPageToken)}`,
    );
    expect(next.tasks).toHaveLength(1);
    expect(next.tasks[0]?.id).not.toBe(body.tasks[0]?.id);
    const proto = await list(
      `contextId=${contextId}&${name}=1&page_token=${encodeURIComponent(body.nextPageToken)}`,
    );
    expect(proto.tasks.map((task) => task.id)).toEqual(next.tasks.map((task) => task.id));
  });

  it('GET /tasks?status=TASK_STATE_WORKING filters by state', async () => {
    const body = await list(`contextId=${contextId}&status=TASK_STATE_WORKING`);
    expect(body.tasks.map((task) => task.id)).toEqual([working.id]);
    const done = await list(`context_id=${contextId}&status=TASK_STATE_COMPLETED`);
    expect(done.tasks.map((task) => task.id).sort()).toEqual(completed.map((t) => t.id).sort());
  });

  it.each(['includeArtifacts', 'include_artifacts'])(
    'GET /tasks?%s=true|false includes artifacts or leaves them out',
    async (name) => {
      const query = `contextId=${contextId}&status=TASK_STATE_COMPLETED`;
      const without = await list(`${query}&${name}=false`);
      expect(without.tasks).toHaveLength(2);
      for (const task of without.tasks) expect(task.artifacts ?? []).toEqual([]);
      const withArtifacts = await list(`${query}&${name}=true`);
      expect(withArtifacts.tasks).toHaveLength(2);
      for (const task of withArtifacts.tasks) expect(task.artifacts).toHaveLength(1);
    },
  );

  it('GET /tasks?historyLength= limits the history of every listed task', async () => {
    const body = await list(`contextId=${contextId}&historyLength=1`);
    for (const task of body.tasks) expect(task.history?.length ?? 0).toBeLessThanOrEqual(1);
    const proto = await list(`contextId=${contextId}&history_length=0`);
    for (const task of proto.tasks) expect(task.history ?? []).toEqual([]);
  });

  it('GET /tasks?statusTimestampAfter= filters by the time of the last status', async () => {
    const future = await list(`contextId=${contextId}&statusTimestampAfter=2999-01-01T00:00:00Z`);
    expect(future.tasks).toEqual([]);
    const past = await list(`contextId=${contextId}&status_timestamp_after=2000-01-01T00:00:00Z`);
    expect(past.tasks).toHaveLength(4);
  });

  it('ignores query parameters that name no field of the request', async () => {
    const body = await list(`contextId=${contextId}&colour=blue&pageSize=2`);
    expect(body.tasks).toHaveLength(2);
  });
});

describe('invalid query parameters', () => {
  it.each([
    // Both spellings of one field: the violation names the field by its JSON name.
    ['pageSize=1&page_size=2', 'pageSize'],
    ['page_size=1&pageSize=2', 'pageSize'],
    ['contextId=a&context_id=b', 'contextId'],
    ['includeArtifacts=true&include_artifacts=true', 'includeArtifacts'],
    ['pageSize=1&pageSize=2', 'pageSize'],
  ])('GET /tasks?%s: one field twice → 400 naming %s', async (query, field) => {
    const fields = await expectInvalidParams(await get(`${server.base}/tasks?${query}`));
    expect(fields).toEqual([field]);
  });

  it.each([
    ['includeArtifacts=yes', 'includeArtifacts'],
    ['includeArtifacts=TRUE', 'includeArtifacts'],
    ['include_artifacts=1', 'include_artifacts'],
    ['includeArtifacts=', 'includeArtifacts'],
    ['pageSize=abc', 'pageSize'],
    ['pageSize=1.5', 'pageSize'],
    ['pageSize=1e2', 'pageSize'],
    ['page_size=99999999999', 'page_size'],
    ['pageSize=', 'pageSize'],
    ['historyLength=ten', 'historyLength'],
    ['history_length=-', 'history_length'],
  ])('GET /tasks?%s → 400 with a field violation naming %s', async (query, field) => {
    const fields = await expectInvalidParams(await get(`${server.base}/tasks?${query}`));
    expect(fields).toEqual([field]);
  });

  it.each([
    ['status=WORKING', 'status'],
    ['status=TASK_STATE_BOGUS', 'status'],
    ['status=working', 'status'],
    ['pageSize=0', 'pageSize'],
    ['pageSize=101', 'pageSize'],
    ['historyLength=-1', 'historyLength'],
    ['statusTimestampAfter=yesterday', 'statusTimestampAfter'],
  ])('GET /tasks?%s → 400 with a field violation naming %s', async (query, field) => {
    const fields = await expectInvalidParams(await get(`${server.base}/tasks?${query}`));
    expect(fields).toEqual([field]);
  });

  it.each([
    ['history_length=-1', 'history_length'],
    ['status_timestamp_after=yesterday', 'status_timestamp_after'],
  ])(
    'GET /tasks?%s → 400 naming the parameter as sent, %s, or its JSON name',
    async (query, field) => {
      const fields = await expectInvalidParams(await get(`${server.base}/tasks?${query}`));
      const camel = field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
      expect(fields).toHaveLength(1);
      expect([field, camel]).toContain(fields[0]);
    },
  );

  it('GET /tasks/{id}?historyLength=x → 400 naming historyLength', async () => {
    const response = await get(`${server.base}/tasks/${asking.id}?historyLength=x`);
    expect(await expectInvalidParams(response)).toEqual(['historyLength']);
  });

  it('lists every invalid parameter at once', async () => {
    const response = await get(`${server.base}/tasks?pageSize=x&includeArtifacts=maybe`);
    expect((await expectInvalidParams(response)).sort()).toEqual(['includeArtifacts', 'pageSize']);
  });

  it('names the tenant when a query parameter disagrees with the tenant of the path', async () => {
    const response = await get(`${server.base}/acme/tasks?tenant=globex`);
    expect(await expectInvalidParams(response)).toEqual(['tenant']);
  });

  it('names the path field when a query parameter disagrees with the path', async () => {
    const response = await get(`${server.base}/tasks/${asking.id}?id=other`);
    expect(await expectInvalidParams(response)).toEqual(['id']);
  });
});

describe('URL encoding', () => {
  const odd = 'a/b:c d+e%f';
  const encoded = encodeURIComponent(odd);

  it.each([
    ['GET', `/tasks/${encoded}`],
    ['POST', `/tasks/${encoded}:cancel`],
    ['GET', `/tasks/${encoded}:subscribe`],
    ['POST', `/tasks/${encoded}:subscribe`],
  ])('%s %s reaches the task "a/b:c d+e%%f" (one decoded path segment)', async (method, path) => {
    const response = await fetch(`${server.base}${path}`, { method, headers: VERSION });
    const body = await expectA2AError(response, 404, 'TASK_NOT_FOUND');
    expect(errorInfoOf(body).metadata?.taskId).toBe(odd);
  });

  it('decodes the task id of the push config routes', async () => {
    const response = await get(`${server.base}/tasks/${encoded}/pushNotificationConfigs/c%2F1`);
    // The agent has no push support: the answer is that, whatever the task.
    await expectA2AError(response, 400, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
  });

  it('decodes query values: a context id holding "/", ":", " " and "+"', async () => {
    const context = `ctx/${Date.now()}:with space+plus`;
    const created = await post(
      `${server.base}/message:send`,
      sendBody('echo x', { message: { contextId: context } }),
    );
    expect(created.status).toBe(200);
    const { task } = (await created.json()) as { task: WireTask };
    expect(task.contextId).toBe(context);
    const body = await list(`contextId=${encodeURIComponent(context)}`);
    expect(body.tasks.map((t) => t.id)).toEqual([task.id]);
  });

  it('refuses a path that is not valid percent-encoding with 404, not a fault', async () => {
    const response = await get(`${server.base}/tasks/%E0%A4%A`);
    expect(response.status).toBe(404);
    expect(server.logger.lines.filter((line) => line.level === 'error')).toEqual([]);
  });
});

describe('A2A-Version as a query parameter (spec 3.6.1)', () => {
  it.each(['A2A-Version', 'a2a-version'])('accepts ?%s=1.0 instead of the header', async (name) => {
    const task = await createTask(server.base, 'echo v');
    const response = await fetch(`${server.base}/tasks/${task.id}?${name}=1.0`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as WireTask).id).toBe(task.id);
  });

  it('accepts it on a POST and on a stream', async () => {
    const send = await fetch(`${server.base}/message:send?A2A-Version=1.0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sendBody('echo q')),
    });
    expect(send.status).toBe(200);
    const stream = await fetch(`${server.base}/message:stream?A2A-Version=1.0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sendBody('echo q')),
    });
    expect(stream.status).toBe(200);
    expect((await readSse(stream)).length).toBeGreaterThan(1);
  });

  it('refuses an unsupported version given as a query parameter', async () => {
    const response = await fetch(`${server.base}/tasks?A2A-Version=9.9`);
    const body = await expectA2AError(response, 400, 'VERSION_NOT_SUPPORTED');
    expect(errorInfoOf(body).metadata).toMatchObject({
      requestedVersion: '9.9',
      supportedVersions: '1.0',
    });
  });

  it('lets the header win over the query parameter', async () => {
    const headerWins = await fetch(`${server.base}/tasks?A2A-Version=9.9`, { headers: VERSION });
    expect(headerWins.status).toBe(200);
    const refused = await fetch(`${server.base}/tasks?A2A-Version=1.0`, {
      headers: { 'a2a-version': '9.9' },
    });
    await expectA2AError(refused, 400, 'VERSION_NOT_SUPPORTED');
  });

  it('is not taken for a field of the request', async () => {
    const task = await createWaitingTask(server.base);
    const response = await fetch(`${server.base}/tasks?A2A-Version=1.0&status=TASK_STATE_WORKING`);
    const body = (await response.json()) as ListBody | StatusBody;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect((body as ListBody).tasks.map((t) => t.id)).toContain(task.id);
    // An error body is a google.rpc.Status, never a JSON-RPC envelope.
    const bad = await fetch(`${server.base}/tasks?A2A-Version=1.0&status=nope`);
    await expectError(bad, 400);
  });
});
