/**
 * The test agents shared by several suites, written against the public API only (`defineAgent`
 * and the agent context), like an application's agents: a card builder, the command agent the
 * HTTP, binding and client tests drive by message text, an agent that requires an extension, and
 * an agent whose every event waits for the test to let it through.
 */

import { dataPart, fileBytesPart, fileUrlPart, textPart } from '../../src/index.js';
import { defineAgent, type AgentCardInput, type AgentDefinition } from '../../src/server.js';
import { deferred, sleep, type Deferred } from './sync.js';

/** A minimal valid card for a test agent. */
export function testCard(name: string, extra: Partial<AgentCardInput> = {}): AgentCardInput {
  return {
    name,
    description: `End-to-end test agent ${name}`,
    skills: [{ id: 'test', name: 'Test', description: 'Does what the test says', tags: ['test'] }],
    ...extra,
  };
}

/**
 * An agent that does what the message text says:
 * - `echo <s>`: one artifact `<s>`, completed;
 * - `stream <n>`: WORKING, n chunks of one artifact (each in its own event-loop turn), COMPLETED;
 * - `slow <n> <ms>`: the same, the chunks `<ms>` apart;
 * - `sleep <ms>`: completes after `<ms>` with one artifact `slept`;
 * - `ask`: INPUT_REQUIRED; the next message completes the task with the artifact `Hello, <text>`;
 * - `reply <s>`: a direct message `<s>`;
 * - `files`: one artifact with text, data and file parts;
 * - `wait`: WORKING until canceled;
 * - `fail`: throws;
 * - anything else: a direct message `unknown command <command>`.
 */
export function commandAgent(options: {
  readonly card: AgentCardInput;
  readonly extendedCard?: AgentCardInput;
}): AgentDefinition {
  return defineAgent({
    card: options.card,
    ...(options.extendedCard === undefined ? {} : { extendedCard: options.extendedCard }),
    async execute(ctx) {
      if (ctx.task !== undefined) {
        await ctx.artifact(`Hello, ${ctx.text}`, { name: 'greeting' });
        return ctx.complete();
      }
      const [command = '', ...args] = ctx.text.split(' ');
      const [n = 1, ms = 0] = args.map(Number);
      switch (command) {
        case 'echo':
          await ctx.artifact(ctx.text.slice(5));
          return ctx.complete();
        case 'stream':
        case 'slow': {
          await ctx.working();
          let artifactId: string | undefined;
          for (let i = 0; i < n; i++) {
            await (command === 'slow' ? sleep(ms) : new Promise(setImmediate));
            if (artifactId === undefined) {
              artifactId = await ctx.artifact(`chunk-${i}`, { lastChunk: n === 1 });
            } else await ctx.append(artifactId, `chunk-${i}`, { lastChunk: i === n - 1 });
          }
          return ctx.complete();
        }
        case 'sleep':
          await sleep(n);
          await ctx.artifact('slept');
          return ctx.complete();
        case 'ask':
          return ctx.inputRequired('What is your name?');
        case 'reply':
          return ctx.reply(ctx.text.slice(6));
        case 'files':
          await ctx.artifact([
            textPart('first line'),
            dataPart({ answer: 42 }),
            fileBytesPart(new TextEncoder().encode('hello'), {
              mediaType: 'text/plain',
              filename: 'a.txt',
            }),
            fileUrlPart('https://example.com/b.png', 'image/png'),
            textPart('second line'),
          ]);
          return ctx.complete();
        case 'wait':
          await ctx.working();
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          return;
        case 'fail':
          throw new Error('agent failure with a secret');
        default:
          return ctx.reply(`unknown command ${command}`);
      }
    },
  });
}

/** The command agent of the HTTP and binding tests (no extended card). */
export const testAgent: AgentDefinition = commandAgent({
  card: {
    name: 'Test agent',
    description: 'Echoes, streams and sleeps on command',
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['test'] }],
  },
});

/** The command agent of the client tests, with an extended card. */
export const clientTestAgent: AgentDefinition = commandAgent({
  card: {
    name: 'Client test agent',
    description: 'Echoes, streams, asks and waits on command',
    skills: [{ id: 'test', name: 'Test', description: 'Test commands', tags: ['test'] }],
  },
  extendedCard: {
    name: 'Client test agent (extended)',
    description: 'The extended card',
    skills: [{ id: 'secret', name: 'Secret', description: 'Only for friends', tags: ['x'] }],
  },
});

export const REQUIRED_EXTENSION = 'https://example.com/ext/required/v1';
export const OPTIONAL_EXTENSION = 'https://example.com/ext/optional/v1';

/** An agent that requires one extension and supports another; it replies `ok`. */
export const extensionAgent: AgentDefinition = defineAgent({
  card: {
    name: 'Extension agent',
    description: 'Requires an extension',
    skills: [{ id: 'x', name: 'X', description: 'Does X', tags: ['x'] }],
    capabilities: {
      streaming: true,
      extensions: [
        { uri: REQUIRED_EXTENSION, required: true },
        { uri: OPTIONAL_EXTENSION, required: false },
      ],
    },
  },
  execute: (ctx) => ctx.reply('ok'),
});

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
