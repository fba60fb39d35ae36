/**
 * The "floor": the benchmark agent (bench-agent.md) on bare `node:http`, doing only what any A2A
 * server must do per request — read the body, JSON.parse, check the version header, build the
 * answer, JSON.stringify, write — with one `write` per SSE event and the tasks in a plain Map.
 * It has no validation, routing, store abstraction or event log: its numbers are the ceiling no
 * real server reaches on this machine, and the other targets are reported as ratios to it.
 *
 * With `GRPC_PORT` set it serves the same agent over gRPC too (floor-grpc.mjs), for the rows of
 * the gRPC scenarios.
 *
 * Run: `PORT=41250 [GRPC_PORT=41252] node bench/targets/floor-server.mjs`
 */

import { createServer } from 'node:http';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { isRunnable, streamPlan } from './floor-commands.mjs';

const port = Number(process.env.PORT ?? 41250);
const host = process.env.HOST ?? '127.0.0.1';
const RPC_PATH = '/a2a';
const GRPC_PORT = process.env.GRPC_PORT ? Number(process.env.GRPC_PORT) : undefined;

const CARD_JSON = JSON.stringify({
  name: 'Echo (floor)',
  description: 'The benchmark agent of bench-agent.md on bare node:http.',
  supportedInterfaces: [
    {
      url: `http://${host}:${port}${RPC_PATH}`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    },
    ...(GRPC_PORT === undefined
      ? []
      : [{ url: `${host}:${GRPC_PORT}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }]),
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

/** Every task ever created: the contract forbids eviction during a run. */
const tasks = new Map();

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function rpcResult(id, result) {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

function rpcError(id, code, message) {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}

function newTask(message) {
  const id = crypto.randomUUID();
  const contextId = crypto.randomUUID();
  const task = {
    id,
    contextId,
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() },
    history: [{ ...message, taskId: id, contextId }],
  };
  tasks.set(id, task);
  return task;
}

function setState(task, state) {
  task.status = { state, timestamp: new Date().toISOString() };
  return { taskId: task.id, contextId: task.contextId, status: task.status };
}

function sendMessage(id, message, res) {
  const text = message.parts[0]?.text ?? '';
  const task = newTask(message);
  if (text.startsWith('echo ') || text === 'echo') {
    task.artifacts = [{ artifactId: crypto.randomUUID(), parts: [{ text: text.slice(5) }] }];
    setState(task, 'TASK_STATE_COMPLETED');
  } else {
    setState(task, 'TASK_STATE_REJECTED');
  }
  res.writeHead(200, JSON_HEADERS).end(rpcResult(id, { task }));
}

function sseEvent(id, result) {
  return `data: ${rpcResult(id, result)}\n\n`;
}

async function sendStreamingMessage(id, message, res) {
  const text = message.parts[0]?.text ?? '';
  const plan = streamPlan(text.trim().split(/\s+/));
  const task = newTask(message);
  res.writeHead(200, SSE_HEADERS);
  res.write(sseEvent(id, { task }));
  if (!isRunnable(plan)) {
    res.end(sseEvent(id, { statusUpdate: setState(task, 'TASK_STATE_REJECTED') }));
    return;
  }
  res.write(sseEvent(id, { statusUpdate: setState(task, 'TASK_STATE_WORKING') }));
  const artifactId = crypto.randomUUID();
  const chunk = 'x'.repeat(plan.bytes);
  const artifact = { artifactId, parts: [] };
  task.artifacts = [artifact];
  for (let i = 0; i < plan.n; i++) {
    // One chunk per event-loop turn (or timer), as the contract requires of every target.
    if (plan.delayMs > 0) await sleep(plan.delayMs);
    else await nextTurn();
    const part = { text: chunk };
    artifact.parts.push(part);
    const update = {
      taskId: task.id,
      contextId: task.contextId,
      artifact: { artifactId, parts: [part] },
    };
    if (i > 0) update.append = true;
    if (i === plan.n - 1) update.lastChunk = true;
    if (!res.destroyed) res.write(sseEvent(id, { artifactUpdate: update }));
  }
  const done = setState(task, 'TASK_STATE_COMPLETED');
  if (!res.destroyed) res.end(sseEvent(id, { statusUpdate: done }));
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
  switch (request.method) {
    case 'SendMessage':
      return sendMessage(id, params.message, res);
    case 'SendStreamingMessage':
      // A malformed request ends its stream; it must not take the server down.
      return void sendStreamingMessage(id, params.message, res).catch(() => res.destroy());
    case 'GetTask': {
      const task = tasks.get(params.id);
      res
        .writeHead(200, JSON_HEADERS)
        .end(
          task === undefined
            ? rpcError(id, -32001, `Task ${params.id} was not found`)
            : rpcResult(id, task),
        );
      return;
    }
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
  req.on('end', () => {
    try {
      handleRpc(req, res, Buffer.concat(chunks).toString('utf8'));
    } catch {
      // A malformed request (no message, no parts) must not take the server down.
      if (!res.headersSent)
        res.writeHead(200, JSON_HEADERS).end(rpcError(null, -32602, 'Invalid params'));
    }
  });
});

server.listen(port, host);
if (GRPC_PORT !== undefined) {
  const { startFloorGrpc } = await import('./floor-grpc.mjs');
  await startFloorGrpc(host, GRPC_PORT);
}
process.on('SIGTERM', () => process.exit(0));
