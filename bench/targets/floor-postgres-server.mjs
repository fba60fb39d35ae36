/**
 * The PostgreSQL "floor": the benchmark agent (bench-agent.md) on bare `node:http` plus `pg`,
 * doing the writes a durable A2A server needs and nothing else — a task row and its log of
 * events, stored before the answer or the event is sent — in the fewest commits a server that
 * commits each request on its own can make: SendMessage `echo` is one statement (the task row
 * and its three events, the `Task` snapshot, the artifact and COMPLETED) and one commit; a stream
 * commits its `Task` and WORKING in one statement, then each chunk, then COMPLETED, each sent
 * once committed. GetTask is one primary-key read. No batching across requests, no change feed,
 * no leases, no projection: Tandem on PostgreSQL is reported as a ratio to it, as the HTTP
 * floor is to Tandem.
 *
 * Run: `PORT=41250 PGURL=postgres://... PGSCHEMA=floor_x node bench/targets/floor-postgres-server.mjs`
 * (the schema is created, and dropped again on SIGTERM).
 */

import { createServer } from 'node:http';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { isRunnable, streamPlan } from './floor-commands.mjs';

const port = Number(process.env.PORT ?? 41250);
const host = process.env.HOST ?? '127.0.0.1';
const schema = process.env.PGSCHEMA ?? 'tandem_bench_floor';
const RPC_PATH = '/a2a';
if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad PGSCHEMA ${schema}`);

const pool = new pg.Pool({
  connectionString: process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/test',
  max: 10,
  application_name: 'tandem-bench-floor',
});
await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
await pool.query(
  `CREATE TABLE IF NOT EXISTS ${schema}.tasks (id text PRIMARY KEY, task text NOT NULL)`,
);
await pool.query(
  `CREATE TABLE IF NOT EXISTS ${schema}.events (task_id text NOT NULL, seq int NOT NULL,
     event text NOT NULL, PRIMARY KEY (task_id, seq))`,
);

/** The task row and its first events, one statement. */
const CREATE = {
  name: 'floor_create',
  text: `WITH t AS (INSERT INTO ${schema}.tasks (id, task) VALUES ($1, $2))
         INSERT INTO ${schema}.events (task_id, seq, event)
         SELECT $1, u.seq, u.event FROM unnest($3::text[]) WITH ORDINALITY AS u (event, seq)`,
};
const APPEND = {
  name: 'floor_append',
  text: `INSERT INTO ${schema}.events (task_id, seq, event) VALUES ($1, $2, $3)`,
};
const FINISH = {
  name: 'floor_finish',
  text: `WITH t AS (UPDATE ${schema}.tasks SET task = $4 WHERE id = $1)
         INSERT INTO ${schema}.events (task_id, seq, event) VALUES ($1, $2, $3)`,
};
const GET = { name: 'floor_get', text: `SELECT task FROM ${schema}.tasks WHERE id = $1` };

const CARD_JSON = JSON.stringify({
  name: 'Echo (PostgreSQL floor)',
  description: 'The benchmark agent of bench-agent.md on bare node:http and pg.',
  supportedInterfaces: [
    {
      url: `http://${host}:${port}${RPC_PATH}`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    },
  ],
  version: '1.0.0',
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'echo <text>, stream <n> <bytes>, slowstream <n> <ms> [bytes=64]',
      tags: ['benchmark'],
    },
  ],
});

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

const rpcResult = (id, result) => JSON.stringify({ jsonrpc: '2.0', id, result });
const rpcError = (id, code, message) =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
const now = () => new Date().toISOString();

function newTask(message) {
  const id = crypto.randomUUID();
  const contextId = crypto.randomUUID();
  return {
    id,
    contextId,
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
    history: [{ ...message, taskId: id, contextId }],
  };
}

function statusUpdate(task, state) {
  task.status = { state, timestamp: now() };
  return { statusUpdate: { taskId: task.id, contextId: task.contextId, status: task.status } };
}

async function sendMessage(id, message, res) {
  const text = message.parts[0]?.text ?? '';
  const task = newTask(message);
  const events = [JSON.stringify({ task })];
  if (text.startsWith('echo ') || text === 'echo') {
    const artifact = { artifactId: crypto.randomUUID(), parts: [{ text: text.slice(5) }] };
    events.push(
      JSON.stringify({ artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact } }),
    );
    task.artifacts = [artifact];
    events.push(JSON.stringify(statusUpdate(task, 'TASK_STATE_COMPLETED')));
  } else {
    events.push(JSON.stringify(statusUpdate(task, 'TASK_STATE_REJECTED')));
  }
  const json = JSON.stringify(task);
  await pool.query({ ...CREATE, values: [task.id, json, events] });
  res.writeHead(200, JSON_HEADERS).end(rpcResult(id, { task }));
}

const sseEvent = (id, result) => `data: ${rpcResult(id, result)}\n\n`;

async function sendStreamingMessage(id, message, res) {
  const text = message.parts[0]?.text ?? '';
  const plan = streamPlan(text.trim().split(/\s+/));
  const task = newTask(message);
  const first = { task: { ...task } };
  const runnable = isRunnable(plan);
  const second = statusUpdate(task, runnable ? 'TASK_STATE_WORKING' : 'TASK_STATE_REJECTED');
  await pool.query({
    ...CREATE,
    values: [task.id, JSON.stringify(task), [JSON.stringify(first), JSON.stringify(second)]],
  });
  res.writeHead(200, SSE_HEADERS);
  res.write(sseEvent(id, first));
  if (!runnable) {
    res.end(sseEvent(id, second));
    return;
  }
  res.write(sseEvent(id, second));
  const artifactId = crypto.randomUUID();
  const chunk = 'x'.repeat(plan.bytes);
  let seq = 2;
  for (let i = 0; i < plan.n; i++) {
    if (plan.delayMs > 0) await sleep(plan.delayMs);
    else await nextTurn();
    const update = {
      taskId: task.id,
      contextId: task.contextId,
      artifact: { artifactId, parts: [{ text: chunk }] },
    };
    if (i > 0) update.append = true;
    if (i === plan.n - 1) update.lastChunk = true;
    const event = { artifactUpdate: update };
    await pool.query({ ...APPEND, values: [task.id, ++seq, JSON.stringify(event)] });
    if (!res.destroyed) res.write(sseEvent(id, event));
  }
  task.artifacts = [{ artifactId, parts: Array.from({ length: plan.n }, () => ({ text: chunk })) }];
  const done = statusUpdate(task, 'TASK_STATE_COMPLETED');
  await pool.query({
    ...FINISH,
    values: [task.id, ++seq, JSON.stringify(done), JSON.stringify(task)],
  });
  if (!res.destroyed) res.end(sseEvent(id, done));
}

async function getTask(id, params, res) {
  const result = await pool.query({ ...GET, values: [params.id] });
  const row = result.rows[0];
  res
    .writeHead(200, JSON_HEADERS)
    .end(
      row === undefined
        ? rpcError(id, -32001, `Task ${params.id} was not found`)
        : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${row.task}}`,
    );
}

function handleRpc(req, res, body) {
  let request;
  try {
    request = JSON.parse(body);
  } catch {
    res.writeHead(200, JSON_HEADERS).end(rpcError(null, -32700, 'Parse error'));
    return;
  }
  const id = request.id ?? null;
  if (req.headers['a2a-version'] !== '1.0') {
    res.writeHead(200, JSON_HEADERS).end(rpcError(id, -32009, 'Send the header A2A-Version: 1.0'));
    return;
  }
  const params = request.params ?? {};
  const fail = () => res.destroy();
  switch (request.method) {
    case 'SendMessage':
      return void sendMessage(id, params.message, res).catch(fail);
    case 'SendStreamingMessage':
      return void sendStreamingMessage(id, params.message, res).catch(fail);
    case 'GetTask':
      return void getTask(id, params, res).catch(fail);
    default:
      res.writeHead(200, JSON_HEADERS).end(rpcError(id, -32601, 'Method not found'));
  }
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
    res.writeHead(200, JSON_HEADERS).end(CARD_JSON);
    return;
  }
  if (req.method !== 'POST' || req.url !== RPC_PATH) {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => handleRpc(req, res, Buffer.concat(chunks).toString()));
});
server.keepAliveTimeout = 60_000;
server.listen(port, host);

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool
    .query(`DROP SCHEMA ${schema} CASCADE`)
    .finally(() => pool.end())
    .finally(() => process.exit(0));
});
