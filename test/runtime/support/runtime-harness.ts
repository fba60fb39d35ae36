/**
 * What the runtime's unit tests share: a started runtime over a store, the engine behind it,
 * messages and changes as the runtime builds them, and a recorder of what the runtime publishes
 * to readers.
 */

import { afterEach } from 'vitest';
import type { Message, StreamResponse } from '../../../src/protocol/generated/types.js';
import { artifactChange, statusChange } from '../../../src/runtime/task-changes.js';
import {
  createTaskRuntime,
  engineOf,
  type TaskRuntimeEngine,
} from '../../../src/runtime/task-runtime.js';
import type { ChangeBuilder } from '../../../src/runtime/task-writer.js';
import type { TaskScope, TaskStore } from '../../../src/stores/task-store.js';

export const scope: TaskScope = Object.freeze({ agent: 'agent', tenant: '', owner: 'owner' });

/** Stands for the request handler that owns the runs a test begins. */
export const owner = { name: 'test handler' };

const open: TaskRuntimeEngine[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((runtime) => runtime.close()));
});

/** A started runtime over `store`, this process being holder `here`; closed after the test. */
export async function startRuntime(
  store: TaskStore,
  options: { orphanTimeoutMs?: number } = {},
): Promise<TaskRuntimeEngine> {
  const runtime = engineOf(createTaskRuntime({ store, holderId: 'here', ...options }));
  open.push(runtime);
  await runtime.start();
  return runtime;
}

/** A user message bound to a task. */
export function userMessage(taskId: string, text: string, contextId = 'ctx'): Message {
  return { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }], taskId, contextId };
}

/** The change that moves `taskId` to `state`. */
export function status(taskId: string, state: Parameters<typeof statusChange>[2]): ChangeBuilder {
  return () => statusChange(taskId, 'ctx', state, undefined);
}

/** A chunk of artifact `a` with text `text` (the first creates it, the others append). */
export function chunk(taskId: string, text: string, append = true): ChangeBuilder {
  return (state) =>
    artifactChange(taskId, 'ctx', state, { artifactId: 'a', parts: [{ text }] }, append, false);
}

/** `task:STATE`, `status:STATE` or `artifact:TEXT` of a payload. */
export function describe(payload: StreamResponse): string {
  if (payload.task !== undefined) return `task:${payload.task.status.state}`;
  if (payload.statusUpdate !== undefined) return `status:${payload.statusUpdate.status.state}`;
  if (payload.artifactUpdate !== undefined) {
    return `artifact:${payload.artifactUpdate.artifact.parts.map((p) => p.text).join('')}`;
  }
  return 'message';
}

/** Records, in order, what the runtime publishes to the readers of `taskId`. */
export function published(runtime: TaskRuntimeEngine, taskId: string): string[] {
  const seen: string[] = [];
  runtime.hub.subscribe(taskId, {
    onEvent: (event) => seen.push(`${event.seq ?? '-'} ${describe(event.payload)}`),
  });
  return seen;
}

/** Lets every pending promise callback run (the scripted store settles in microtasks). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
