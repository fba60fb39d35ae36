/**
 * The writer of stores whose appends may be pipelined — every built-in store: memory, SQLite
 * (which commits the writes of one event-loop turn together) and PostgreSQL (which queues writes in
 * call order and batches them; see `postgres-write-queue.ts`). An agent's changes are sent ahead
 * of their commit. Each is checked against the state the changes before it will
 * leave, handed to the store at once — so that a task's consecutive changes share a commit — and
 * published once stored, in order. An artifact change resolves as soon as it is handed over while
 * fewer than {@link WRITE_AHEAD_LIMIT} wait for their commit; a status change resolves once
 * stored. A write that fails dooms the ones sent after it (each was built on the state it was to
 * leave): they fail with its error, and the agent hears of it through its next call if its own
 * promise already resolved (see `write-ahead.ts`). When a cancel, a reload or a failure is in the
 * run's queue, changes go one at a time again, as the {@link SerialWriter} sends them.
 */

import type { TaskState } from '../protocol/generated/types.js';
import { asError } from '../protocol/local-errors.js';
import type { AppendResult } from '../stores/task-store.js';
import { SerialWriter } from './serial-writer.js';
import { streamEvent } from './stream-event.js';
import { targetStateOf, type TaskChange } from './task-changes.js';
import {
  APPLIED,
  type ChangeBuilder,
  type CreationWrite,
  type PreparedCreation,
  type RunForWriter,
  type TaskWriter,
  type WriteOutcome,
} from './task-writer.js';
import { WRITE_AHEAD_LIMIT, WriteAhead } from './write-ahead.js';

/** How the store answered a write sent ahead. */
type SentAhead = { result: AppendResult; error?: undefined } | { result?: undefined; error: Error };

const ignore = (): void => {};
/** Resolved once and shared: a promise that has settled never changes. */
const SENT: Promise<WriteOutcome> = Promise.resolve(APPLIED);

/** Sends changes ahead of their commit. */
export class PipelinedWriter implements TaskWriter {
  /** The run's port (see `task-run-port.ts`), held by the run and this writer only. */
  readonly #run: RunForWriter;
  readonly #serial: SerialWriter;
  readonly #ahead: WriteAhead;

  constructor(run: RunForWriter) {
    this.#run = run;
    this.#serial = new SerialWriter(run);
    this.#ahead = new WriteAhead();
  }

  acceptedState(): TaskState {
    return this.#ahead.acceptedState(this.#run.storedState);
  }

  write(build: ChangeBuilder): Promise<WriteOutcome> {
    const ahead = this.#ahead;
    const unreported = ahead.takeUnreported();
    if (unreported !== undefined) return Promise.reject(unreported);
    const run = this.#run;
    // Only writes sent ahead may wait in the queue: anything else decides the state first.
    if (run.stopped || run.queue.pending !== ahead.count || ahead.failing) {
      return this.#serial.write(build);
    }
    const expectedSeq = ahead.baseSeq(run.seq);
    let change: TaskChange;
    try {
      change = run.checkChange(build, ahead.acceptedState(run.storedState));
    } catch (error) {
      return Promise.reject(asError(error));
    }
    const event = streamEvent(expectedSeq + 1, change.payload);
    const sent = run.store.append({
      taskId: run.taskId,
      expectedSeq,
      events: [event],
      mutations: change.mutations,
    });
    ahead.sent(expectedSeq + 1, change.state);
    const waits = targetStateOf(change) !== undefined || ahead.count > WRITE_AHEAD_LIMIT;
    // Settled now, so that a failure is never an unhandled rejection; acted on in queue order.
    const settled = sent.then(
      (result): SentAhead => ({ result }),
      (error: unknown): SentAhead => ({ error: asError(error) }),
    );
    const handled = run.queue.run(() =>
      settled.then(({ result, error }) => {
        if (error !== undefined) {
          ahead.failed(error, expectedSeq, waits);
          ahead.handled(expectedSeq);
          throw error;
        }
        const doomedBy = ahead.handled(expectedSeq);
        if (result.ok) {
          run.changeStored(change, event, result.seq);
          return APPLIED;
        }
        if (doomedBy !== undefined) {
          if (waits) ahead.reported(doomedBy.error);
          throw doomedBy.error;
        }
        return this.#serial.retry(build);
      }),
    );
    if (waits) return handled;
    // Its failure reaches the agent through its next call (see `WriteAhead.takeUnreported`).
    handled.catch(ignore);
    return SENT;
  }

  /**
   * The creation is sent ahead when it is the run's first write, as it always is; a first change
   * that is an artifact then settles `written` at once, as {@link write} does.
   */
  create(prepare: () => PreparedCreation): CreationWrite {
    const run = this.#run;
    if (run.queue.pending !== 0) return this.#serial.create(prepare);
    const ahead = this.#ahead;
    let settleWrite!: (outcome: Promise<WriteOutcome>) => void;
    const written = new Promise<WriteOutcome>((resolve) => (settleWrite = resolve));
    const created = run.queue.run(() => {
      const creation = prepare();
      const { change, refused } = creation;
      const stored = run.store.createTask(creation.request);
      const early =
        refused === undefined && change !== undefined && targetStateOf(change) === undefined;
      ahead.sent(creation.request.events.length, creation.state);
      const done = stored.then(
        () => {
          ahead.handled(0);
          run.creationStored(creation);
          return creation.snapshot;
        },
        (error: unknown) => {
          const failure = asError(error);
          // The writes sent after it would find no task: they fail with its error.
          ahead.failed(failure, 0, !early);
          ahead.handled(0);
          throw failure;
        },
      );
      if (early) settleWrite(SENT);
      else if (refused !== undefined) settleWrite(done.then(() => Promise.reject(refused)));
      else settleWrite(done.then(() => (change === undefined ? 'dropped' : APPLIED)));
      return done;
    });
    // A creation that failed before it was attempted fails the write with the same error.
    created.catch(() => settleWrite(created.then(() => APPLIED)));
    return { created, written };
  }
}
