/**
 * The task metrics of one run (a task's execution in this process): `a2a.server.tasks.active` by
 * state while the run lives, `a2a.server.tasks.finished` by terminal state, and
 * `a2a.server.task.interruption.duration` — how long the task waited in input-required or
 * auth-required before it went on, measured in this process (a wait that began on another
 * replica, or before a restart, is not timed). The runtime calls it once per state it stores.
 */

import type { Attributes } from '@opentelemetry/api';
import { tandemInstruments } from './instruments.js';
import { ATTR_A2A_TASK_STATE, ATTR_GEN_AI_AGENT_NAME } from './telemetry-attributes.js';

const TERMINAL = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
const INTERRUPTED = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

const attributeCache = new Map<string, Attributes>();

function attributesOf(state: string, agent: string): Attributes {
  const key = `${state}\n${agent}`;
  let attributes = attributeCache.get(key);
  if (attributes === undefined) {
    attributes = { [ATTR_A2A_TASK_STATE]: state, [ATTR_GEN_AI_AGENT_NAME]: agent };
    if (attributeCache.size < 1024) attributeCache.set(key, attributes);
  }
  return attributes;
}

/** When each task this process saw interrupted entered that state (bounded). */
const interruptedSince = new Map<string, number>();
const MAX_TRACKED_INTERRUPTIONS = 10_000;

/** The metrics of one run. */
export class TaskRunMetrics {
  readonly #agent: string;
  readonly #taskId: string;
  #state: string | undefined;

  constructor(agent: string, taskId: string) {
    this.#agent = agent;
    this.#taskId = taskId;
  }

  /** The run's task is now in `state` (stored, or read back from the store). */
  state(state: string): void {
    const previous = this.#state;
    if (previous === state) return;
    this.#state = state;
    const instruments = tandemInstruments();
    if (previous !== undefined && !TERMINAL.has(previous)) {
      instruments.serverTasksActive.add(-1, attributesOf(previous, this.#agent));
    }
    if (previous !== undefined && INTERRUPTED.has(previous)) this.#resumed(previous);
    if (TERMINAL.has(state)) {
      instruments.serverTasksFinished.add(1, attributesOf(state, this.#agent));
      interruptedSince.delete(this.#taskId);
      return;
    }
    instruments.serverTasksActive.add(1, attributesOf(state, this.#agent));
    if (INTERRUPTED.has(state) && interruptedSince.size < MAX_TRACKED_INTERRUPTIONS) {
      interruptedSince.set(this.#taskId, performance.now());
    }
  }

  /** The run ended in this process: its task no longer counts as active here. */
  ended(): void {
    const state = this.#state;
    this.#state = undefined;
    if (state !== undefined && !TERMINAL.has(state)) {
      tandemInstruments().serverTasksActive.add(-1, attributesOf(state, this.#agent));
    }
  }

  #resumed(state: string): void {
    const since = interruptedSince.get(this.#taskId);
    if (since === undefined) return;
    interruptedSince.delete(this.#taskId);
    tandemInstruments().serverTaskInterruptionDuration.record(
      (performance.now() - since) / 1000,
      attributesOf(state, this.#agent),
    );
  }
}
