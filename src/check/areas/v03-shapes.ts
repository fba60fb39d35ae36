/**
 * `v03.kinds` (0.3 section 6, the 0.3 JSON schema): the objects a 0.3 JSON-RPC agent answers
 * carry their `kind` discriminator (`task`, `message`, `status-update`, `artifact-update`, and
 * `text`, `file`, `data` on parts) and the fields the schema requires. The 0.3 translators read
 * a task without `kind` to be forgiving; a 0.3 client that switches on `kind` does not, so the
 * checker looks at the JSON as sent.
 */

import type { InterfaceCheck } from '../check-implementation.js';
import { fail, isUnavailable, pass, skip } from '../verdict.js';
import type { Exchange } from '../wire/wire-exchange.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields the 0.3 schema requires of each kind. */
const REQUIRED: Record<string, readonly string[]> = {
  task: ['id', 'contextId', 'status'],
  message: ['messageId', 'parts', 'role'],
  'status-update': ['taskId', 'contextId', 'status', 'final'],
  'artifact-update': ['taskId', 'contextId', 'artifact'],
};

function partProblems(parts: unknown, path: string): string[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part: unknown, index) => {
    if (!isRecord(part)) return [];
    const kind = part.kind;
    if (kind !== 'text' && kind !== 'file' && kind !== 'data')
      return [`${path}[${index}] has kind ${JSON.stringify(kind)}`];
    return part[kind] === undefined ? [`${path}[${index}] (kind ${kind}) has no ${kind}`] : [];
  });
}

/** What is wrong with a 0.3 object expected to be one of `kinds`. */
export function shapeProblems(value: unknown, kinds: readonly string[], path: string): string[] {
  if (!isRecord(value)) return [`${path} is not an object`];
  const kind = typeof value.kind === 'string' ? value.kind : undefined;
  if (kind === undefined || !kinds.includes(kind)) {
    return [
      `${path} has kind ${JSON.stringify(value.kind)}, not ${kinds.map((k) => `"${k}"`).join(' or ')}`,
    ];
  }
  const problems = (REQUIRED[kind] ?? [])
    .filter((field) => value[field] === undefined)
    .map((field) => `${path} (${kind}) has no ${field}`);
  if (kind === 'message') problems.push(...partProblems(value.parts, `${path}.parts`));
  if (kind === 'task') {
    if (Array.isArray(value.history))
      value.history.forEach((m, i) =>
        problems.push(...shapeProblems(m, ['message'], `${path}.history[${i}]`)),
      );
    if (Array.isArray(value.artifacts))
      value.artifacts.forEach((a, i) =>
        problems.push(
          ...partProblems(isRecord(a) ? a.parts : undefined, `${path}.artifacts[${i}].parts`),
        ),
      );
  }
  if (kind === 'artifact-update' && isRecord(value.artifact))
    problems.push(...partProblems(value.artifact.parts, `${path}.artifact.parts`));
  return problems;
}

const KINDS_OF: Record<string, readonly string[]> = {
  SendMessage: ['task', 'message'],
  GetTask: ['task'],
  CancelTask: ['task'],
};

export const V03_KINDS: InterfaceCheck = {
  id: 'v03.kinds',
  async run(context) {
    const checked: { problems: string[]; exchange: Exchange }[] = [];
    for (const { operation, outcome } of context.observations) {
      const kinds = KINDS_OF[operation];
      if (kinds === undefined || outcome.kind !== 'result') continue;
      checked.push({
        problems: shapeProblems(outcome.raw, kinds, 'result'),
        exchange: outcome.exchange,
      });
    }
    const streamed = context.view.streaming ? await context.fixtures.streamed() : undefined;
    if (streamed !== undefined && !isUnavailable(streamed)) {
      streamed.events.forEach((event, index) => {
        checked.push({
          problems: shapeProblems(
            event.raw,
            ['task', 'message', 'status-update', 'artifact-update'],
            `event ${index + 1}`,
          ),
          exchange: streamed.exchange,
        });
      });
    }
    if (checked.length === 0) return skip('no task or message was seen');
    const bad = checked.find((c) => c.problems.length > 0);
    return bad === undefined
      ? pass(
          `${checked.length} object(s), each with its kind and required fields`,
          checked[0]?.exchange,
        )
      : fail(bad.problems.slice(0, 4).join('; '), bad.exchange);
  },
};
