/**
 * What one batch does to one task: the writes of that task that the batch commits together (a
 * creation or an append, then the appends that continue it, each built on the one before), folded
 * into the one change the batch statement applies (`postgres-batch-statement.ts`): one
 * conditional insert or update of the task row, the log entries and messages to insert, and one
 * net write per artifact — its parts appended or replaced, in the order the writes gave them.
 *
 * The fold follows the rule every store shares (`applyMutation`): an artifact given whole
 * replaces the one with its id, or is added after the others; a chunk appends its parts to it
 * (and is added whole when there is none), its name, description, metadata and extensions
 * replacing the stored ones. Only a chunk that carries such fields for an artifact the batch did
 * not write itself needs the stored fields: the write queue reads them first (see
 * {@link ArtifactWrite.merges}).
 */

import type { Artifact, TaskStatus } from '../../protocol/generated/types.js';
import { InvalidTaskWriteError } from '../../protocol/local-errors.js';
import { carriesArtifactFields } from '../../protocol/task-projection.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { PushConfigRecord } from '../push-store.js';
import { artifactFieldsJson, mergedArtifactFieldsJson } from '../sql/task-rows.js';
import { statusTimeOf } from '../task-log.js';
import { encodeTaskTraceContext } from '../../telemetry/task-trace-context.js';
import type {
  AppendRequest,
  CreateTaskRequest,
  TaskLogEntry,
  TaskMutation,
} from '../task-store.js';

/** The net write of one artifact. */
export interface ArtifactWrite {
  readonly artifactId: string;
  /** Order among the artifacts of this write: new artifacts are placed in this order. */
  readonly rank: number;
  /** The parts are appended (else they replace the stored ones). */
  append: boolean;
  /** The fields of the artifact when it does not exist yet (its JSON without parts). */
  fields: string;
  /**
   * The fields of the existing artifact after this write; `null` keeps the stored ones. Unknown
   * until the stored fields are read when {@link merges} is not empty.
   */
  setFields: string | null;
  /** Chunks whose fields merge into the stored ones, in order (see the module documentation). */
  readonly merges: Artifact[];
  readonly parts: string[];
}

/** The status a write leaves, as the task row stores it. */
interface StoredStatus {
  readonly json: string;
  readonly state: string;
  readonly time: number;
}

/** What creating the task adds to its row (a write that continues an existing task has none). */
export interface TaskCreation {
  readonly agent: string;
  readonly tenant: string;
  readonly owner: string;
  readonly contextId: string;
  readonly metadata: string | null;
  readonly leaseHolder: string | null;
  readonly leaseMs: number;
  readonly pushConfigs: readonly PushConfigRecord[];
  /** See `encodeTaskTraceContext`. */
  readonly traceContext: string | null;
}

/** The writes of one task in one batch, folded. */
export interface TaskWrite {
  readonly taskId: string;
  readonly creation: TaskCreation | undefined;
  /** The seq the task must be at (0 for a creation). */
  readonly expectedSeq: number;
  /** The seq once written. */
  seq: number;
  /** Log entries' JSON, seq `expectedSeq + 1` on. */
  readonly events: string[];
  /** The last event's JSON (how a write whose commit went unanswered is recognised). */
  lastEvent: string | undefined;
  readonly messages: string[];
  status: StoredStatus | undefined;
  readonly artifacts: Map<string, ArtifactWrite>;
}

/**
 * The longest task id the store accepts, in bytes of its JSON: announcements carry ids, and a
 * `NOTIFY` payload holds at most 8,000 bytes.
 */
export const MAX_TASK_ID_JSON_BYTES = 2_000;

/** Throws `InvalidTaskWriteError` for a task id a notification could not carry. */
export function checkTaskId(taskId: string): void {
  if (Buffer.byteLength(JSON.stringify(taskId)) > MAX_TASK_ID_JSON_BYTES) {
    throw new InvalidTaskWriteError(
      `Task id of ${taskId.length} characters is too long for the PostgreSQL store (at most ${MAX_TASK_ID_JSON_BYTES} bytes as JSON)`,
    );
  }
}

function storedStatus(status: TaskStatus): StoredStatus {
  return { json: JSON.stringify(status), state: status.state, time: statusTimeOf(status) };
}

/** The fold of a creation, to which appends that continue it are added. */
export function creationWrite(request: CreateTaskRequest): TaskWrite {
  const { task, scope } = request;
  const write: TaskWrite = {
    taskId: task.id,
    creation: {
      agent: scope.agent,
      tenant: scope.tenant,
      owner: scope.owner,
      contextId: task.contextId ?? '',
      metadata: task.metadata === undefined ? null : JSON.stringify(task.metadata),
      leaseHolder: request.leaseHolder ?? null,
      leaseMs: request.leaseMs ?? 0,
      pushConfigs: request.pushConfigs ?? [],
      traceContext: encodeTaskTraceContext(request.traceContext),
    },
    expectedSeq: 0,
    seq: 0,
    events: [],
    lastEvent: undefined,
    messages: [],
    status: storedStatus(task.status),
    artifacts: new Map(),
  };
  addEvents(write, request.events);
  for (const message of task.history ?? []) write.messages.push(JSON.stringify(message));
  for (const artifact of task.artifacts ?? []) addArtifact(write, artifact, false);
  return write;
}

/** The fold of an append that starts a write (it continues no write of the batch). */
export function appendWrite(request: AppendRequest): TaskWrite {
  const write: TaskWrite = {
    taskId: request.taskId,
    creation: undefined,
    expectedSeq: request.expectedSeq,
    seq: request.expectedSeq,
    events: [],
    lastEvent: undefined,
    messages: [],
    status: undefined,
    artifacts: new Map(),
  };
  continueWith(write, request);
  return write;
}

/** Adds an append that continues `write` (its `expectedSeq` is `write.seq`). */
export function continueWith(write: TaskWrite, request: AppendRequest): void {
  addEvents(write, request.events);
  for (const mutation of request.mutations) addMutation(write, mutation);
}

/** Whether the write leaves the task terminal: its lease then ends with it. */
export function endsLease(write: TaskWrite): boolean {
  return write.status !== undefined && isTerminalState(write.status.state as TaskStatus['state']);
}

/** Whether some artifact of the write needs the stored fields before the write is sent. */
export function needsStoredFields(write: TaskWrite): boolean {
  for (const artifact of write.artifacts.values()) if (artifact.merges.length > 0) return true;
  return false;
}

/**
 * Completes the artifacts that needed their stored fields, given those fields by artifact id
 * (an id absent from `stored` has no artifact yet, and is written as new).
 */
export function applyStoredFields(write: TaskWrite, stored: ReadonlyMap<string, string>): void {
  for (const artifact of write.artifacts.values()) {
    if (artifact.merges.length === 0) continue;
    let fields = stored.get(artifact.artifactId);
    if (fields === undefined) continue;
    for (const chunk of artifact.merges) fields = mergedArtifactFieldsJson(fields, chunk) ?? fields;
    artifact.setFields = fields;
  }
}

function addEvents(write: TaskWrite, events: readonly TaskLogEntry[]): void {
  for (const event of events) {
    write.events.push(event.json);
    write.lastEvent = event.json;
  }
  write.seq += events.length;
}

function addMutation(write: TaskWrite, mutation: TaskMutation): void {
  switch (mutation.kind) {
    case 'status':
      write.status = storedStatus(mutation.status);
      return;
    case 'history':
      write.messages.push(JSON.stringify(mutation.message));
      return;
    case 'artifact':
      addArtifact(write, mutation.artifact, mutation.append);
      return;
  }
}

function addArtifact(write: TaskWrite, artifact: Artifact, append: boolean): void {
  const parts = artifact.parts.map((part) => JSON.stringify(part));
  const known = write.artifacts.get(artifact.artifactId);
  if (!append) {
    const fields = artifactFieldsJson(artifact);
    write.artifacts.set(artifact.artifactId, {
      artifactId: artifact.artifactId,
      rank: known?.rank ?? write.artifacts.size,
      append: false,
      fields,
      setFields: fields,
      merges: [],
      parts,
    });
    return;
  }
  if (known === undefined) {
    write.artifacts.set(artifact.artifactId, {
      artifactId: artifact.artifactId,
      rank: write.artifacts.size,
      append: true,
      fields: artifactFieldsJson(artifact),
      setFields: null,
      merges: carriesArtifactFields(artifact) ? [artifact] : [],
      parts,
    });
    return;
  }
  known.parts.push(...parts);
  known.fields = mergedArtifactFieldsJson(known.fields, artifact) ?? known.fields;
  if (!known.append) known.setFields = known.fields;
  else if (carriesArtifactFields(artifact)) known.merges.push(artifact);
}
