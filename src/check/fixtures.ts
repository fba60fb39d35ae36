/**
 * The tasks the checks of one interface share, each made at most once and only when a check
 * asks for it: the answer to a plain message, a finished task, a task kept running, a task that
 * asks for input, a streamed message. Where a particular behaviour is needed the message id
 * follows the convention of the official conformance suites (`tck-input-required-…`,
 * `test-resubscribe-message-id-…`): agents built for those suites do as asked, and any other
 * agent just answers its usual way, which the checks then take as it comes.
 *
 * Under `--safe` nothing is made: each fixture is unavailable, and the checks that need one are
 * skipped, saying so. Only `readableTask` can still be had, from ListTasks.
 */

import type { Task } from '../protocol/generated/types.js';
import {
  isFinalOrInterruptedState,
  isInterruptedState,
  isTerminalState,
} from '../protocol/task-state.js';
import type { CardView } from './card-view.js';
import { unknownTaskId, userMessage } from './check-messages.js';
import type { CheckOptions } from './check-types.js';
import type {
  CallOutcome,
  Probe,
  StreamEnd,
  StreamEventRead,
  StreamOutcome,
} from './probe/probe.js';
import { describeOutcome, exchangeOf, type Unavailable } from './verdict.js';
import type { Exchange } from './wire/wire-exchange.js';

/** Why fixtures are unavailable under `--safe`. */
export const SAFE_MODE = '--safe: the checker sends no message and creates no task';

/** A stream read to its end (or as far as the checker waited). */
export interface StreamRun {
  readonly outcome: StreamOutcome;
  readonly events: readonly StreamEventRead[];
  readonly end: StreamEnd;
  readonly strayLines: readonly string[];
  readonly exchange: Exchange;
}

/** How long to read a stream: the wait for each event, and for the close after a final state. */
export interface StreamLimits {
  readonly idleMs: number;
  readonly totalMs: number;
  /** Called with each event; `'stop'` stops reading (the stream is closed). */
  readonly onEvent?: (event: StreamEventRead) => 'stop' | void | Promise<'stop' | void>;
}

/** The state an event leaves the task in, if it says. */
export function stateOf(event: StreamEventRead): Task['status']['state'] | undefined {
  const payload = event.payload;
  return payload?.task?.status.state ?? payload?.statusUpdate?.status.state;
}

/** Reads a stream until it ends, the limits pass, or `onEvent` stops it. */
export async function readStream(outcome: StreamOutcome, limits: StreamLimits): Promise<StreamRun> {
  if (outcome.kind !== 'stream') {
    return {
      outcome,
      events: [],
      end: { end: 'closed' },
      strayLines: [],
      exchange: exchangeOf(outcome),
    };
  }
  const events: StreamEventRead[] = [];
  const deadline = Date.now() + limits.totalMs;
  let end: StreamEnd | undefined;
  let final = false;
  while (end === undefined) {
    const left = deadline - Date.now();
    if (left <= 0) {
      end = { end: 'timeout' };
      break;
    }
    // After a final state the agent must close the stream; it gets a short grace for it.
    const wait = Math.min(left, final ? Math.min(limits.idleMs, 2_000) : limits.idleMs);
    const next = await outcome.events.next(wait);
    if ('end' in next) {
      end = next;
      break;
    }
    events.push(next);
    const state = stateOf(next);
    if (
      next.payload?.message !== undefined ||
      (state !== undefined && isFinalOrInterruptedState(state))
    ) {
      final = true;
    }
    if ((await limits.onEvent?.(next)) === 'stop') end = { end: 'stopped' };
    if (events.length >= 500) end = { end: 'stopped' };
  }
  outcome.events.close();
  return {
    outcome,
    events,
    end,
    strayLines: outcome.events.strayLines,
    exchange: outcome.exchange(),
  };
}

/** A task the agent returned, with the outcome it came in. */
export interface TaskFixture {
  readonly task: Task;
  readonly outcome: CallOutcome;
}

function taskOf(outcome: CallOutcome): Task | undefined {
  if (outcome.kind !== 'result') return undefined;
  const value = outcome.value as { task?: Task; id?: string };
  if (value.task !== undefined) return value.task;
  return typeof value.id === 'string' ? (value as Task) : undefined;
}

/** The fixtures of one interface. */
export class Fixtures {
  readonly #probe: Probe;
  readonly #context: { readonly options: CheckOptions; readonly view: CardView };
  readonly #memo = new Map<string, Promise<unknown>>();

  constructor(probe: Probe, context: { readonly options: CheckOptions; readonly view: CardView }) {
    this.#probe = probe;
    this.#context = context;
  }

  get safe(): boolean {
    return this.#context.options.safe === true;
  }

  #once<T>(key: string, make: () => Promise<T>): Promise<T> {
    let made = this.#memo.get(key) as Promise<T> | undefined;
    if (made === undefined) {
      made = make();
      this.#memo.set(key, made);
    }
    return made;
  }

  #idleMs(): number {
    return this.#context.options.timeoutMs ?? 10_000;
  }

  /** The answer to the checker's message, sent blocking (SendMessage without configuration). */
  sent(): Promise<CallOutcome | Unavailable> {
    if (this.safe) return Promise.resolve({ unavailable: SAFE_MODE });
    return this.#once('sent', () =>
      this.#probe.call('SendMessage', { message: userMessage(this.#context) }),
    );
  }

  /** The task of {@link sent}, when the agent answered with one. */
  async sentTask(): Promise<TaskFixture | Unavailable> {
    const outcome = await this.sent();
    if ('unavailable' in outcome) return outcome;
    const task = taskOf(outcome);
    if (task !== undefined) return { task, outcome };
    return {
      unavailable:
        outcome.kind === 'result'
          ? 'the agent answered the message with a Message and created no task'
          : `the message the checker sent was not answered with a task: the agent ${describeOutcome(outcome)}`,
    };
  }

  /**
   * A task in a terminal state: the answer to the message if it is one, else that task once it
   * ends (an interrupted one is canceled), else a task made with the `tck-complete-task` prefix.
   */
  finished(): Promise<TaskFixture | Unavailable> {
    return this.#once('finished', async () => {
      const sent = await this.sentTask();
      if (!('unavailable' in sent) && isTerminalState(sent.task.status.state)) return sent;
      if (!('unavailable' in sent)) {
        const ended = await this.#ended(sent.task);
        if (ended !== undefined) return ended;
      }
      if (this.safe) return { unavailable: SAFE_MODE };
      const again = await this.#probe.call('SendMessage', {
        message: userMessage(this.#context, { prefix: 'tck-complete-task' }),
      });
      const task = taskOf(again);
      if (task !== undefined && isTerminalState(task.status.state)) return { task, outcome: again };
      return 'unavailable' in sent
        ? sent
        : { unavailable: 'no task of the agent reached a terminal state' };
    });
  }

  /** A task brought to its end: polled while it works, canceled when it waits for input. */
  async #ended(task: Task): Promise<TaskFixture | undefined> {
    const deadline = Date.now() + this.#idleMs();
    let current = task;
    for (;;) {
      if (isInterruptedState(current.status.state) || Date.now() > deadline) {
        const canceled = await this.#probe.call('CancelTask', { id: current.id });
        const read = taskOf(canceled);
        return read !== undefined && isTerminalState(read.status.state)
          ? { task: read, outcome: canceled }
          : undefined;
      }
      // Polling, as a client without a stream would: the agent owes no event to wait for.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const got = await this.#probe.call('GetTask', { id: current.id });
      const read = taskOf(got);
      if (read === undefined) return undefined;
      current = read;
      if (isTerminalState(current.status.state)) return { task: current, outcome: got };
    }
  }

  /**
   * A task meant to be still running, from SendMessage with `returnImmediately` (message id
   * `test-resubscribe-message-id-…`, which conformance agents keep working for seconds); one per
   * purpose, since the check that takes one ends it. The task may be finished already: an agent
   * that is quick may answer a finished task; the caller looks at its state.
   */
  live(purpose: 'cancel' | 'subscribe' | 'push'): Promise<TaskFixture | Unavailable> {
    if (this.safe) return Promise.resolve({ unavailable: SAFE_MODE });
    return this.#once(`live-${purpose}`, async () => {
      const outcome = await this.#probe.call('SendMessage', {
        message: userMessage(this.#context, { prefix: 'test-resubscribe-message-id' }),
        configuration: { returnImmediately: true },
      });
      const task = taskOf(outcome);
      if (task === undefined) {
        return {
          unavailable:
            outcome.kind === 'result'
              ? 'the agent answered with a Message and created no task'
              : `SendMessage with returnImmediately: the agent ${describeOutcome(outcome)}`,
        };
      }
      return { task, outcome };
    });
  }

  /**
   * Two tasks of one context: the finished task, and the task of a second message that names
   * only its `contextId` (spec 3.4.3). The second is the answer as it came (a task, a message or
   * an error), for the checks to judge.
   */
  contextPair(): Promise<
    { readonly first: TaskFixture; readonly second: CallOutcome } | Unavailable
  > {
    if (this.safe) return Promise.resolve({ unavailable: SAFE_MODE });
    return this.#once('context-pair', async () => {
      const first = await this.finished();
      if ('unavailable' in first) return first;
      const contextId = first.task.contextId;
      if (contextId === undefined || contextId === '') {
        return { unavailable: `task ${first.task.id} has no contextId` };
      }
      const second = await this.#probe.call('SendMessage', {
        message: userMessage(this.#context, { contextId }),
      });
      return { first, second };
    });
  }

  /** A task waiting for input, asked for with `tck-input-required` (or a vague message). */
  interrupted(): Promise<TaskFixture | Unavailable> {
    if (this.safe) return Promise.resolve({ unavailable: SAFE_MODE });
    return this.#once('interrupted', async () => {
      // Not the answer to `sent`: `finished` may cancel that one. The conformance suites' prefix first; then a message too vague to act on, which agents
      // that ask for what they miss answer with a question.
      for (const text of [undefined, '?']) {
        const message = userMessage(this.#context, { prefix: 'tck-input-required' });
        const outcome = await this.#probe.call('SendMessage', {
          message: text === undefined ? message : { ...message, parts: [{ text }] },
        });
        const task = taskOf(outcome);
        if (task?.status.state === 'TASK_STATE_INPUT_REQUIRED') return { task, outcome };
      }
      return { unavailable: 'the agent asked for no input for the messages the checker sent' };
    });
  }

  /** The checker's message, streamed and read to its end. */
  streamed(): Promise<StreamRun | Unavailable> {
    if (this.safe) return Promise.resolve({ unavailable: SAFE_MODE });
    return this.#once('streamed', async () => {
      const outcome = await this.#probe.stream('SendStreamingMessage', {
        message: userMessage(this.#context, { prefix: 'tck-stream-001' }),
      });
      return readStream(outcome, { idleMs: this.#idleMs(), totalMs: 3 * this.#idleMs() });
    });
  }

  /**
   * A GetTask of an unknown id sent without the credentials (read only, so `--safe` allows it):
   * what the agent does with a caller that brings none.
   */
  withoutCredentials(): Promise<CallOutcome> {
    return this.#once('without-credentials', () =>
      this.#probe.call('GetTask', { id: unknownTaskId() }, { credentials: false }),
    );
  }

  /**
   * A task the checks may read: the finished task, or under `--safe` the first task ListTasks
   * shows (1.0 interfaces only: 0.3 lists no tasks).
   */
  readableTask(): Promise<TaskFixture | Unavailable> {
    if (!this.safe) return this.finished();
    return this.#once('readable', async () => {
      if (this.#probe.target.version !== '1.0') return { unavailable: SAFE_MODE };
      const outcome = await this.#probe.call('ListTasks', { pageSize: 1 });
      const tasks = outcome.kind === 'result' ? (outcome.value as { tasks: Task[] }).tasks : [];
      const task = tasks[0];
      return task === undefined
        ? { unavailable: `${SAFE_MODE}, and ListTasks shows no task to read` }
        : { task, outcome };
    });
  }
}
