/**
 * One change at a time: each is built from the stored state and appended when the writes before
 * it have settled. It is the writer of stores that do not declare `pipelinedAppends` (none of the
 * built-in ones), and the `PipelinedWriter` falls back to it while a cancel, a reload or a failure
 * waits in the run's queue. A refused append — the task moved on elsewhere — reloads the task and
 * builds the change again from what it found, unless the task has ended meanwhile.
 */

import type { TaskState } from '../protocol/generated/types.js';
import { asError } from '../protocol/local-errors.js';
import {
  APPLIED,
  DROPPED,
  type ChangeBuilder,
  type CreationWrite,
  type PreparedCreation,
  type RunForWriter,
  type TaskWriter,
  type WriteOutcome,
} from './task-writer.js';

/** Writes one change at a time, in the run's turn. */
export class SerialWriter implements TaskWriter {
  /** The run's port (see `task-run-port.ts`), held by the run and its writer only. */
  readonly #run: RunForWriter;

  constructor(run: RunForWriter) {
    this.#run = run;
  }

  acceptedState(): TaskState {
    return this.#run.storedState;
  }

  write(build: ChangeBuilder): Promise<WriteOutcome> {
    return this.#run.queue.run(() => this.attempt(build));
  }

  /** One attempt, in the run's turn; after a refused (stale) append, reloads and tries again. */
  attempt(build: ChangeBuilder): Promise<WriteOutcome> {
    const run = this.#run;
    if (run.stopped) return DROPPED;
    let change;
    try {
      change = run.checkChange(build, run.storedState);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    return run.appendChange(change).then((applied) => (applied ? APPLIED : this.retry(build)));
  }

  /** Reloads the task after a refused append, then attempts `build` again unless it ended. */
  async retry(build: ChangeBuilder): Promise<WriteOutcome> {
    if (await this.#run.reloadAfterConflict()) return 'dropped';
    return this.attempt(build);
  }

  create(prepare: () => PreparedCreation): CreationWrite {
    const run = this.#run;
    let settleWrite!: (outcome: Promise<WriteOutcome>) => void;
    const written = new Promise<WriteOutcome>((resolve) => (settleWrite = resolve));
    const created = run.queue.run(() => {
      const creation = prepare();
      const done = run.store.createTask(creation.request).then(() => {
        run.creationStored(creation);
        return creation.snapshot;
      });
      const { change, refused } = creation;
      settleWrite(
        refused !== undefined
          ? done.then(() => Promise.reject(refused))
          : done.then(() => (change === undefined ? 'dropped' : APPLIED)),
      );
      return done;
    });
    // A creation that failed before it was attempted fails the write with the same error.
    created.catch(() => settleWrite(created.then(() => APPLIED)));
    return { created, written };
  }
}
