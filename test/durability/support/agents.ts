/**
 * Test agents for the in-process servers, and the comparison of event streams across tasks.
 * Agents are written against the public API only (`defineAgent` and the agent context), like an
 * application's agents.
 */

import { textPart } from '../../../src/index.js';
import { defineAgent, type AgentDefinition } from '../../../src/server.js';
import type { Frame } from './json-rpc.js';
import { deferred, type Deferred } from './sync.js';

/** Permits an agent waits for: one per event the test lets it produce. */
export class Gate {
  #permits = 0;
  #waiter: (() => void) | undefined;

  /** Lets the agent take `n` more steps. */
  open(n = 1): void {
    this.#permits += n;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  async pass(): Promise<void> {
    while (this.#permits === 0) {
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
    this.#permits--;
  }
}

/** What the test sees of one execution of a {@link gatedAgent}. */
export interface GatedRun {
  readonly gate: Gate;
  /** Resolves once the agent's `complete()` has been stored and delivered. */
  readonly finished: Deferred<void>;
}

/**
 * An agent that marks its task WORKING, then produces `chunks` chunks of one artifact
 * (`part-0`, `part-1`, …) and the completion, each only after the test opens its gate: the test
 * decides exactly how far the task has got. Its stream has `chunks + 3` events.
 */
export function gatedAgent(chunks: number): {
  readonly agent: AgentDefinition;
  readonly run: (taskId: string) => GatedRun;
} {
  const runs = new Map<string, GatedRun>();
  const run = (taskId: string): GatedRun => {
    let found = runs.get(taskId);
    if (found === undefined) {
      found = { gate: new Gate(), finished: deferred() };
      runs.set(taskId, found);
    }
    return found;
  };
  const agent = defineAgent({
    card: {
      name: 'Gated',
      description: 'Produces each event when the test says so',
      skills: [{ id: 'gated', name: 'Gated', description: 'Gated chunks', tags: ['test'] }],
    },
    async execute(ctx) {
      const { gate, finished } = run(ctx.taskId);
      await ctx.working();
      let artifactId = '';
      for (let i = 0; i < chunks; i++) {
        await gate.pass();
        const last = i === chunks - 1;
        if (i === 0) artifactId = await ctx.artifact(textPart('part-0'), { lastChunk: last });
        else await ctx.append(artifactId, textPart(`part-${i}`), { lastChunk: last });
      }
      await gate.pass();
      await ctx.complete('done');
      finished.resolve();
    },
  });
  return { agent, run };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * The frames of a stream with what differs from task to task replaced: UUIDs by their order of
 * first appearance (so that "every event names the same task" still shows), timestamps by `T`.
 * Two runs of a deterministic agent give equal results.
 */
export function normalizeFrames(frames: readonly Frame[]): string[] {
  const labels = new Map<string, string>();
  return frames.map((frame) =>
    JSON.stringify({ id: frame.id, result: frame.result ?? null }, (_key, value: unknown) => {
      if (typeof value !== 'string') return value;
      if (TIMESTAMP.test(value)) return 'T';
      if (!UUID.test(value)) return value;
      let label = labels.get(value);
      if (label === undefined) {
        label = `uuid-${labels.size + 1}`;
        labels.set(value, label);
      }
      return label;
    }),
  );
}
