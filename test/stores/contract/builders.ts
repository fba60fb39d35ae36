/**
 * Builders for the task store contract: tasks, log entries and a writer that appends the way the
 * runtime does (one event plus the mutations it implies, conditional on the last seen seq).
 */

import { afterEach, beforeEach, expect } from 'vitest';
import type {
  Artifact,
  Message,
  Part,
  StreamResponse,
  Task,
  TaskState,
  TaskStatus,
} from '../../../src/protocol/generated/types.js';
import type {
  AppendResult,
  CreateTaskRequest,
  StoredTask,
  TaskLogEntry,
  TaskMutation,
  TaskScope,
  TaskStore,
} from '../../../src/stores/task-store.js';

/** What a test gets from a store under test. */
export interface OpenedStore {
  readonly store: TaskStore;
  close(): Promise<void>;
}

/** Opens a fresh, empty store. */
export type OpenStore = () => Promise<OpenedStore>;

export const scope: TaskScope = { agent: 'dice', tenant: 'acme', owner: 'alice' };

/** A fixed instant, so that listing order is deterministic: `T0 + n` ms. */
export const T0 = Date.parse('2025-06-01T12:00:00.000Z');

export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

export function logEntry(seq: number, payload: StreamResponse): TaskLogEntry {
  return { seq, payload, json: JSON.stringify(payload) };
}

/** Log entries as plain values (an entry may compute its JSON in a getter). */
export function entriesOf(
  entries: readonly TaskLogEntry[] | undefined,
): TaskLogEntry[] | undefined {
  return entries?.map(({ seq, payload, json }) => ({ seq, payload, json }));
}

export function textPart(text: string): Part {
  return { text };
}

export function message(
  messageId: string,
  text: string,
  role: Message['role'] = 'ROLE_USER',
): Message {
  return { messageId, role, parts: [textPart(text)] };
}

export function status(state: TaskState, time: number, note?: Message): TaskStatus {
  const result: TaskStatus = { state, timestamp: isoAt(time) };
  if (note !== undefined) result.message = note;
  return result;
}

export interface TaskSpec {
  readonly contextId?: string;
  readonly state?: TaskState;
  readonly time?: number;
  readonly history?: Message[];
  readonly artifacts?: Artifact[];
  readonly metadata?: Task['metadata'];
}

export function newTask(id: string, spec: TaskSpec = {}): Task {
  const task: Task = {
    id,
    contextId: spec.contextId ?? `ctx-${id}`,
    status: status(spec.state ?? 'TASK_STATE_SUBMITTED', spec.time ?? T0),
    history: spec.history ?? [message(`${id}-m0`, `hello ${id}`)],
  };
  if (spec.artifacts !== undefined) task.artifacts = spec.artifacts;
  if (spec.metadata !== undefined) task.metadata = spec.metadata;
  return task;
}

export function createRequest(
  task: Task,
  options: { scope?: TaskScope; leaseHolder?: string; leaseMs?: number } = {},
): CreateTaskRequest {
  const request: CreateTaskRequest = {
    scope: options.scope ?? scope,
    task,
    events: [logEntry(1, { task })],
  };
  return {
    ...request,
    ...(options.leaseHolder === undefined ? {} : { leaseHolder: options.leaseHolder }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  };
}

/** Creates a task and returns a writer positioned after its first event. */
export async function createTask(
  store: TaskStore,
  id: string,
  spec: TaskSpec = {},
  options: { scope?: TaskScope; leaseHolder?: string; leaseMs?: number } = {},
): Promise<TaskWriter> {
  const task = newTask(id, spec);
  await store.createTask(createRequest(task, options));
  return new TaskWriter(store, options.scope ?? scope, task.id, task.contextId ?? '');
}

/** Appends to one task like the runtime's TaskRun: one event and its mutations per write. */
export class TaskWriter {
  seq = 1;

  constructor(
    readonly store: TaskStore,
    readonly scope: TaskScope,
    readonly taskId: string,
    readonly contextId: string,
  ) {}

  /** One conditional append; advances `seq` when accepted. */
  async write(payload: StreamResponse, mutations: readonly TaskMutation[]): Promise<AppendResult> {
    const result = await this.store.append({
      taskId: this.taskId,
      expectedSeq: this.seq,
      events: [logEntry(this.seq + 1, payload)],
      mutations,
    });
    if (result.ok) this.seq = result.seq;
    return result;
  }

  /** Writes until accepted, reloading the seq after each refusal; returns the accepted seq. */
  async writeRetrying(
    payload: StreamResponse,
    mutations: readonly TaskMutation[],
  ): Promise<number> {
    for (;;) {
      const result = await this.write(payload, mutations);
      if (result.ok) return result.seq;
      const stored = await this.store.getTask(this.scope, this.taskId, {
        historyLength: 0,
        includeArtifacts: false,
      });
      if (stored === undefined) throw new Error(`Task ${this.taskId} vanished`);
      this.seq = stored.seq;
    }
  }

  setStatus(state: TaskState, time: number, note?: Message): Promise<AppendResult> {
    const next = status(state, time, note);
    const mutations: TaskMutation[] = [{ kind: 'status', status: next }];
    if (note !== undefined) mutations.push({ kind: 'history', message: note });
    return this.write(
      { statusUpdate: { taskId: this.taskId, contextId: this.contextId, status: next } },
      mutations,
    );
  }

  addMessage(note: Message): Promise<AppendResult> {
    return this.write({ message: note }, [{ kind: 'history', message: note }]);
  }

  artifact(artifact: Artifact, append = false): Promise<AppendResult> {
    const update = { taskId: this.taskId, contextId: this.contextId, artifact, append };
    return this.write({ artifactUpdate: update }, [{ kind: 'artifact', artifact, append }]);
  }
}

// Lease expiry is measured on real clocks: the contract lets real time pass.
export { sleep } from '../../support/sync.js';

/** Opens a fresh store before each test of the enclosing `describe` and closes it after. */
export function useStore(open: OpenStore): () => TaskStore {
  let opened: OpenedStore | undefined;
  beforeEach(async () => {
    opened = await open();
  });
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });
  return () => {
    if (opened === undefined) throw new Error('The store is only open inside a test');
    return opened.store;
  };
}

/**
 * A stored task without its optional `json` text, after checking that the text, when a store
 * gives one, is exactly the JSON of the task: stores differ in whether they have it at hand.
 */
export function comparable(stored: StoredTask | undefined): StoredTask | undefined {
  if (stored?.json === undefined) return stored;
  expect(stored.json).toBe(JSON.stringify(stored.task));
  return { task: stored.task, seq: stored.seq, state: stored.state };
}
