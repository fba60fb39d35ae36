/**
 * The floor's gRPC door (spec 10): the benchmark agent on a bare `@grpc/grpc-js` server, the
 * library both Tandem's and a2a-js's gRPC servers are built on, doing only what any A2A server
 * must do per call — decode the request, check the `a2a-version` metadata, build the task,
 * encode the answer — with the tasks in a plain Map. Like the HTTP floor, its numbers are a
 * ceiling no real server reaches on this machine: what the transport and the harness cost.
 *
 * Started by floor-server.mjs when `GRPC_PORT` is set.
 */

import grpc from '@grpc/grpc-js';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { a2aTypes } from '../lib/grpc-client.mjs';
import { isRunnable, streamPlan } from './floor-commands.mjs';

const types = a2aTypes();
const { TaskState } = types;

/** Every task ever created over gRPC: the contract forbids eviction during a run. */
const tasks = new Map();

function now() {
  const ms = Date.now();
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 };
}

function newTask(message) {
  const id = crypto.randomUUID();
  const contextId = crypto.randomUUID();
  const task = {
    id,
    contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now() },
    history: [{ ...message, taskId: id, contextId }],
  };
  tasks.set(id, task);
  return task;
}

function setState(task, state) {
  task.status = { state, timestamp: now() };
  return { taskId: task.id, contextId: task.contextId, status: task.status };
}

/** Bytes in and out as they are: each handler encodes and decodes itself. */
const raw = (bytes) => bytes;

function method(name, responseStream) {
  return {
    path: `/lf.a2a.v1.A2AService/${name}`,
    requestStream: false,
    responseStream,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  };
}

/** FAILED_PRECONDITION: VersionNotSupportedError (spec 5.4), unless the call asks for 1.0. */
function versionError(call) {
  return call.metadata.get('a2a-version')[0] === '1.0'
    ? undefined
    : { code: grpc.status.FAILED_PRECONDITION, details: 'Send the metadata a2a-version: 1.0' };
}

function sendMessage(call, callback) {
  const refused = versionError(call);
  if (refused !== undefined) return callback(refused);
  const { message } = types.SendMessageRequest.decode(call.request);
  const text = message?.parts?.[0]?.text ?? '';
  const task = newTask(message);
  if (text.startsWith('echo ') || text === 'echo') {
    task.artifacts = [{ artifactId: crypto.randomUUID(), parts: [{ text: text.slice(5) }] }];
    setState(task, TaskState.TASK_STATE_COMPLETED);
  } else {
    setState(task, TaskState.TASK_STATE_REJECTED);
  }
  callback(null, types.SendMessageResponse.encode({ task }).finish());
}

function getTask(call, callback) {
  const refused = versionError(call);
  if (refused !== undefined) return callback(refused);
  const { id } = types.GetTaskRequest.decode(call.request);
  const task = tasks.get(id);
  if (task === undefined) {
    return callback({ code: grpc.status.NOT_FOUND, details: `Task ${id} was not found` });
  }
  callback(null, types.Task.encode(task).finish());
}

async function sendStreamingMessage(call) {
  const refused = versionError(call);
  if (refused !== undefined) return call.destroy(refused);
  const event = (response) => call.write(types.StreamResponse.encode(response).finish());
  const { message } = types.SendMessageRequest.decode(call.request);
  const text = message?.parts?.[0]?.text ?? '';
  const plan = streamPlan(text.trim().split(/\s+/));
  const task = newTask(message);
  event({ task });
  if (!isRunnable(plan)) {
    event({ statusUpdate: setState(task, TaskState.TASK_STATE_REJECTED) });
    call.end();
    return;
  }
  event({ statusUpdate: setState(task, TaskState.TASK_STATE_WORKING) });
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
    if (call.cancelled) return;
    event({ artifactUpdate: update });
  }
  event({ statusUpdate: setState(task, TaskState.TASK_STATE_COMPLETED) });
  call.end();
}

/** Serves the floor's gRPC door on `host:port`; resolves once it listens. */
export function startFloorGrpc(host, port) {
  // Channelz off, as Tandem has it: per-call counters for an admin service nobody serves.
  const server = new grpc.Server({ 'grpc.enable_channelz': 0 });
  server.addService(
    {
      SendMessage: method('SendMessage', false),
      GetTask: method('GetTask', false),
      SendStreamingMessage: method('SendStreamingMessage', true),
    },
    {
      SendMessage: sendMessage,
      GetTask: getTask,
      // A malformed request ends its stream; it must not take the server down.
      SendStreamingMessage: (call) =>
        void sendStreamingMessage(call).catch(() =>
          call.destroy({ code: grpc.status.INVALID_ARGUMENT, details: 'Invalid request' }),
        ),
    },
  );
  return new Promise((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error) =>
      error === null ? resolve(server) : reject(error),
    ),
  );
}
