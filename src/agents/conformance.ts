/**
 * The conformance agent (the contract in `conformance-agent.md`): its behaviour is chosen by the
 * prefix of the incoming `messageId`, the convention of the official A2A conformance suites, so
 * that a suite written by others can drive every protocol path of the server without knowing any
 * agent logic. Prefixes are matched with `startsWith`, longest first, so that
 * `tck-artifact-file-url` is never taken for `tck-artifact-file`.
 *
 * Every execution decides anew, also one that continues a task: after `tck-input-required`, the
 * follow-up message's own prefix picks what happens next.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { dataPart, fileBytesPart, fileUrlPart, textPart, type Part } from '../index.js';
import {
  defineAgent,
  type AgentCardInput,
  type AgentContext,
  type AgentDefinition,
} from '../server.js';

type Behaviour = (ctx: AgentContext) => Promise<void>;

const FILE = { filename: 'output.txt', mediaType: 'text/plain' } as const;
const FILE_BYTES = new TextEncoder().encode('Hello from TCK');

/** working → one artifact → completed: the shape of the `tck-stream-*` rows. */
function streamed(content: () => Part): Behaviour {
  return async (ctx) => {
    await ctx.working();
    await ctx.artifact(content());
    await ctx.complete();
  };
}

/** One artifact, then completed. */
function artifactThenComplete(content: () => Part): Behaviour {
  return async (ctx) => {
    await ctx.artifact(content());
    await ctx.complete();
  };
}

/**
 * `TCK_STREAMING_TIMEOUT` in seconds, read at each execution so that a suite can set it for the
 * server process; 2.0 when unset or not a non-negative number.
 */
export function streamingTimeoutSeconds(): number {
  const raw = process.env.TCK_STREAMING_TIMEOUT?.trim();
  const value = raw === undefined || raw === '' ? Number.NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : 2.0;
}

/** Stays WORKING for 2 × TCK_STREAMING_TIMEOUT so that a client can resubscribe meanwhile. */
async function workThenComplete(ctx: AgentContext): Promise<void> {
  await ctx.working();
  try {
    await sleep(2 * streamingTimeoutSeconds() * 1000, undefined, { signal: ctx.signal });
  } catch (error) {
    if (ctx.signal.aborted) return;
    throw error;
  }
  await ctx.complete();
}

/** The table of `conformance-agent.md`, one row per prefix. */
const BEHAVIOURS: readonly (readonly [prefix: string, behaviour: Behaviour])[] = [
  ['tck-complete-task', (ctx) => ctx.complete('Hello from TCK')],
  ['tck-input-required', (ctx) => ctx.inputRequired('Input required: send a follow-up message')],
  [
    'tck-message-response',
    // A message that continues a task cannot be answered by a bare message (spec 3.1.1).
    (ctx) =>
      ctx.task === undefined
        ? ctx.reply('Direct message response')
        : ctx.complete('Direct message response'),
  ],
  ['tck-artifact-text', artifactThenComplete(() => textPart('Generated text content'))],
  [
    'tck-artifact-file-url',
    artifactThenComplete(() => fileUrlPart('https://example.com/output.txt', FILE)),
  ],
  ['tck-artifact-file', artifactThenComplete(() => fileBytesPart(FILE_BYTES, FILE))],
  ['tck-artifact-data', artifactThenComplete(() => dataPart({ key: 'value', count: 42 }))],
  ['tck-reject-task', (ctx) => ctx.reject('Rejected by the conformance agent')],
  ['tck-stream-001', streamed(() => textPart('Stream hello from TCK'))],
  ['tck-stream-002', (ctx) => ctx.complete()],
  ['tck-stream-003', streamed(() => textPart('Stream task lifecycle'))],
  ['tck-stream-ordering-001', streamed(() => textPart('Ordered output'))],
  ['tck-stream-artifact-text', streamed(() => textPart('Streamed text content'))],
  ['tck-stream-artifact-file', streamed(() => fileBytesPart(FILE_BYTES, FILE))],
  [
    'tck-stream-artifact-chunked',
    async (ctx) => {
      await ctx.working();
      // The table marks both chunks `append`, the first too (as the reference agent sends it).
      const out = ctx.artifactStream({ append: true });
      await out.append(textPart('chunk-1 '));
      await out.end(textPart('chunk-2'));
      await ctx.complete();
    },
  ],
  ['test-resubscribe-message-id', workThenComplete],
];

const BY_LONGEST_PREFIX = [...BEHAVIOURS].sort(([a], [b]) => b.length - a.length);

const fallback: Behaviour = (ctx) => ctx.complete('Done');

/** The behaviour for a message id: the row of its longest matching prefix, or the fallback. */
export function conformanceBehaviourOf(messageId: string): Behaviour {
  for (const [prefix, behaviour] of BY_LONGEST_PREFIX) {
    if (messageId.startsWith(prefix)) return behaviour;
  }
  return fallback;
}

/** The prefixes the agent recognizes, in the order of `conformance-agent.md`. */
export const CONFORMANCE_PREFIXES: readonly string[] = BEHAVIOURS.map(([prefix]) => prefix);

const card: AgentCardInput = {
  name: 'Conformance',
  description:
    'Conformance-suite agent: behaves according to the prefix of the incoming messageId ' +
    '(tck-complete-task, tck-input-required, tck-message-response, tck-artifact-*, ' +
    'tck-reject-task, tck-stream-*, test-resubscribe-message-id), the convention of the ' +
    'official A2A conformance suites; any other message completes the task with "Done".',
  version: '1.0.0',
  // A suite may send parts of any media type; none may be refused as unsupported.
  defaultInputModes: ['text/plain', '*/*'],
  defaultOutputModes: ['text/plain', 'application/json'],
  capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
  skills: [
    {
      id: 'conformance',
      name: 'Conformance scenarios',
      description:
        'Completes, rejects, asks for input, replies with a bare message, or emits text, ' +
        'file and data artifacts (whole or chunked), as the messageId prefix asks.',
      tags: ['conformance', 'testing', 'tck'],
      examples: ['messageId "tck-complete-task-001"', 'messageId "tck-stream-artifact-chunked"'],
      inputModes: ['text/plain', '*/*'],
      outputModes: ['text/plain', 'application/json'],
    },
  ],
};

/**
 * The conformance agent: the public card, and as extended card the same plus one skill (served to
 * every caller when authentication is off, so that suites can exercise GetExtendedAgentCard).
 */
export const conformance: AgentDefinition = defineAgent({
  card,
  extendedCard: {
    ...card,
    skills: [
      ...card.skills,
      {
        id: 'conformance-extended',
        name: 'Extended card scenario',
        description: 'Listed only in the extended agent card (GetExtendedAgentCard).',
        tags: ['conformance', 'extended-card'],
      },
    ],
  },
  execute(ctx) {
    return conformanceBehaviourOf(ctx.message.messageId)(ctx);
  },
});
