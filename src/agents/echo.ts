/**
 * The benchmark agent (the contract in `bench-agent.md`): fixed, cheap work that any A2A server can
 * implement identically, so that servers can be measured side by side. Its contract is exact —
 * event order, chunk sizes, one event-loop turn per chunk — and its hot path allocates nothing per
 * chunk: the chunk's part is built once per stream (the runtime copies what it stores, so reusing
 * it is safe), and the artifact stream marks the first and last chunks itself.
 *
 * Commands (the text of the message's first part):
 * - `echo <s>`: one artifact whose only part is the text `<s>`, then COMPLETED.
 * - `stream <n> <bytes>`: WORKING, then `n` chunks of one artifact, each `<bytes>` ASCII
 *   characters, one per event-loop turn, then COMPLETED.
 * - `slowstream <n> <ms> [bytes=64]`: as `stream`, waiting `<ms>` ms before each chunk; a cancel
 *   ends it at once.
 * Anything else, or arguments out of range, is REJECTED with a message saying what to send: the
 * agent did no work, and a harness must not mistake a typo for a completed run.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';
import { textPart } from '../index.js';
import { defineAgent, type AgentContext, type AgentDefinition } from '../server.js';

/** Upper bounds of the arguments, so that one request cannot tie the server up indefinitely. */
export const ECHO_LIMITS = {
  maxChunks: 100_000,
  maxChunkBytes: 1_048_576,
  maxDelayMs: 60_000,
} as const;

const DEFAULT_SLOW_BYTES = 64;

const USAGE =
  'Send one of: "echo <text>", "stream <n> <bytes>" or "slowstream <n> <ms> [bytes=64]" ' +
  `(n ≤ ${ECHO_LIMITS.maxChunks}, bytes ≤ ${ECHO_LIMITS.maxChunkBytes}, ms ≤ ${ECHO_LIMITS.maxDelayMs}).`;

/** A non-negative decimal integer no greater than `max`, or the reason it is not one. */
function naturalNumber(value: string | undefined, name: string, max: number): number | string {
  if (value === undefined) return `<${name}> is missing`;
  if (!/^\d{1,10}$/.test(value)) return `<${name}> must be a non-negative integer, got "${value}"`;
  const parsed = Number(value);
  return parsed <= max ? parsed : `<${name}> must be at most ${max}, got ${parsed}`;
}

interface StreamPlan {
  readonly chunks: number;
  readonly bytes: number;
  /** Milliseconds before each chunk; `undefined` for one event-loop turn. */
  readonly delayMs: number | undefined;
}

/** Reads the arguments of `stream` / `slowstream`, or says what is wrong with them. */
function planOf(command: 'stream' | 'slowstream', args: readonly string[]): StreamPlan | string {
  const slow = command === 'slowstream';
  const maxArgs = slow ? 3 : 2;
  if (args.length > maxArgs) return `${command} takes at most ${maxArgs} arguments`;
  const chunks = naturalNumber(args[0], 'n', ECHO_LIMITS.maxChunks);
  if (typeof chunks === 'string') return chunks;
  const delayMs = slow ? naturalNumber(args[1], 'ms', ECHO_LIMITS.maxDelayMs) : undefined;
  if (typeof delayMs === 'string') return delayMs;
  const bytesArg = slow ? args[2] : args[1];
  const bytes =
    slow && bytesArg === undefined
      ? DEFAULT_SLOW_BYTES
      : naturalNumber(bytesArg, 'bytes', ECHO_LIMITS.maxChunkBytes);
  if (typeof bytes === 'string') return bytes;
  return { chunks, bytes, delayMs };
}

/**
 * The waits before the chunks of one stream. One abort listener serves them all: registering and
 * removing a listener for every chunk (as `timers/promises` does with a signal) costs more than
 * the chunk itself, and a thousand slow streams would keep those objects alive across each wait.
 */
class ChunkWaits {
  readonly #signal: AbortSignal;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #wake: ((canceled: boolean) => void) | undefined;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  readonly #onAbort = (): void => {
    clearTimeout(this.#timer);
    this.#wake?.(true);
  };

  /** Resolves with true when the wait ended because the task was canceled. */
  next(delayMs: number | undefined): Promise<boolean> {
    if (delayMs === undefined) return nextTurn().then(() => this.#signal.aborted);
    if (this.#signal.aborted) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#timer = setTimeout(resolve, delayMs, false);
    });
  }

  /** Removes the abort listener once the stream is over. */
  dispose(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
  }
}

async function streamChunks(ctx: AgentContext, plan: StreamPlan): Promise<void> {
  await ctx.working();
  const { chunks, delayMs } = plan;
  const part = textPart('x'.repeat(plan.bytes));
  const out = ctx.artifactStream();
  const waits = new ChunkWaits(ctx.signal);
  try {
    // The stream writes a chunk when it is given the next one, or at its end: chunk i is handed
    // over before its wait and written right after it, each chunk in a turn of its own.
    for (let i = 0; i < chunks; i++) {
      await out.append(part);
      if (await waits.next(delayMs)) return;
    }
  } finally {
    waits.dispose();
  }
  await out.end();
  return ctx.complete();
}

export const echo: AgentDefinition = defineAgent({
  card: {
    name: 'Echo',
    description:
      'The Tandem benchmark agent (bench-agent.md). "echo <text>" answers with one artifact ' +
      'holding <text>; "stream <n> <bytes>" streams n chunks of <bytes> ASCII characters, one ' +
      'per event-loop turn; "slowstream <n> <ms> [bytes=64]" waits <ms> ms before each chunk. ' +
      'Any other command, or arguments out of range, is rejected (TASK_STATE_REJECTED) with a ' +
      'message listing the commands.',
    version: '1.0.0',
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    capabilities: { streaming: true },
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Answers with one artifact holding the text after "echo ".',
        tags: ['benchmark', 'echo'],
        examples: ['echo hello world'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
      },
      {
        id: 'stream',
        name: 'Stream chunks',
        description:
          'Streams n artifact chunks of a given size, one per event-loop turn ("stream"), or ' +
          'one every <ms> milliseconds ("slowstream").',
        tags: ['benchmark', 'streaming'],
        examples: ['stream 5 16', 'slowstream 3 30 8'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
      },
    ],
  },
  execute(ctx) {
    const text = ctx.message.parts[0]?.text ?? '';
    if (text === 'echo' || text.startsWith('echo ')) {
      return ctx.artifact(textPart(text.slice(5))).then(() => ctx.complete());
    }
    const [command = '', ...args] = text.trim().split(/\s+/);
    if (command !== 'stream' && command !== 'slowstream') {
      return ctx.reject(`Unknown command "${command.slice(0, 40)}". ${USAGE}`);
    }
    const plan = planOf(command, args);
    if (typeof plan === 'string') return ctx.reject(`Invalid ${command}: ${plan}. ${USAGE}`);
    return streamChunks(ctx, plan);
  },
});
