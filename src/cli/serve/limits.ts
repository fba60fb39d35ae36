/**
 * The abuse limits of `tandem serve` (spec 13.4): on by default with the library's defaults
 * (`DEFAULT_CALL_LIMITS`), each configurable, or all off (`--limits off`, env `TANDEM_LIMITS=off`,
 * e.g. for a benchmark that is one client at thousands of requests per second).
 */

import {
  DEFAULT_CALL_LIMITS,
  DEFAULT_TASK_CONTENT_LIMITS,
  type CallLimitsOptions,
  type TaskContentLimits,
} from '../../server.js';
import { parsePositiveInteger, UsageFailure } from '../cli-values.js';
import type { ServeOptionGroup } from './option-group.js';

/** The `parseArgs` options this module reads. */
export const LIMIT_OPTIONS = {
  limits: { type: 'string' },
  'rate-limit': { type: 'string' },
  'task-rate-limit': { type: 'string' },
  'max-streams': { type: 'string' },
  'max-parts': { type: 'string' },
  'max-artifact-bytes': { type: 'string' },
  'max-history': { type: 'string' },
} as const;

/** The help lines of {@link LIMIT_OPTIONS}. */
export const LIMIT_HELP = `Limits (per caller: principal, or address when anonymous; answered HTTP 429 / RESOURCE_EXHAUSTED):
  --rate-limit <n>        Requests per minute (default ${DEFAULT_CALL_LIMITS.requestsPerMinute})
  --task-rate-limit <n>   New tasks per minute (default ${DEFAULT_CALL_LIMITS.tasksPerMinute})
  --max-streams <n>       Streams open at once (default ${DEFAULT_CALL_LIMITS.concurrentStreams})
  --max-parts <n>         Parts per message (default ${DEFAULT_CALL_LIMITS.partsPerMessage})
  --max-artifact-bytes <n> Bytes of artifacts per task (default ${DEFAULT_TASK_CONTENT_LIMITS.artifactBytesPerTask})
  --max-history <n>       Messages kept in a task's history (default ${DEFAULT_TASK_CONTENT_LIMITS.historyLength})
  --limits off            None of these (env TANDEM_LIMITS=off)`;

type Values = { readonly [K in keyof typeof LIMIT_OPTIONS]?: string | undefined };

/** The limits `tandem serve` applies: the server's per caller, and each agent's per task. */
export interface ServeLimits {
  readonly calls: CallLimitsOptions;
  readonly content: TaskContentLimits;
}

/**
 * The limits the flags ask for; `undefined` for none.
 *
 * @throws UsageFailure for a value that is not a whole number of at least 1, or `--limits` other
 *   than `on`/`off`.
 */
export function parseServeLimits(values: Values): ServeLimits | undefined {
  const mode = values.limits ?? process.env.TANDEM_LIMITS ?? 'on';
  if (mode !== 'on' && mode !== 'off') {
    throw new UsageFailure(`--limits must be on or off, got "${mode}"`);
  }
  const tuned = (
    [
      'rate-limit',
      'task-rate-limit',
      'max-streams',
      'max-parts',
      'max-artifact-bytes',
      'max-history',
    ] as const
  ).filter((name) => values[name] !== undefined);
  if (mode === 'off') {
    if (tuned.length > 0) throw new UsageFailure(`--${tuned[0]} has no effect with --limits off`);
    return undefined;
  }
  const value = (name: (typeof tuned)[number]): number | undefined => {
    const text = values[name];
    return text === undefined ? undefined : parsePositiveInteger(text, `--${name}`);
  };
  const limits: { -readonly [K in keyof CallLimitsOptions]: number } = {};
  const content: { -readonly [K in keyof TaskContentLimits]: number } = {};
  const requests = value('rate-limit');
  const tasks = value('task-rate-limit');
  const streams = value('max-streams');
  const parts = value('max-parts');
  if (requests !== undefined) limits.requestsPerMinute = requests;
  if (tasks !== undefined) limits.tasksPerMinute = tasks;
  if (streams !== undefined) limits.concurrentStreams = streams;
  if (parts !== undefined) limits.partsPerMessage = parts;
  const artifactBytes = value('max-artifact-bytes');
  const history = value('max-history');
  if (artifactBytes !== undefined) content.artifactBytesPerTask = artifactBytes;
  if (history !== undefined) content.historyLength = history;
  return { calls: limits, content };
}

/** The limits flags: on by default, `undefined` with `--limits off`. */
export const LIMITS_GROUP = {
  options: LIMIT_OPTIONS,
  help: LIMIT_HELP,
  parse: parseServeLimits,
} satisfies ServeOptionGroup<Values, ServeLimits | undefined>;
