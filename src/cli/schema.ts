/**
 * `tandem schema [Type]`: prints the JSON Schema (draft 2020-12) of the A2A messages, for
 * contract tests — the whole bundle, or one message or enum with the definitions it refers to.
 * No agent is called.
 */

import { SCHEMA_TYPE_NAMES, isSchemaTypeName, jsonSchemaBundle, jsonSchemaOf } from '../index.js';
import { UsageFailure } from './cli-values.js';
import { ExitCode } from './exit-code.js';
import { parseCommandLine } from './parse-command-line.js';

const HELP = `Usage: tandem schema [Type]

Prints a JSON Schema (draft 2020-12) of the A2A 1.0 messages in their JSON form, with the rules
Tandem's validators apply: required fields, exactly one member per oneof, enum names, int32
ranges, UTC timestamps, base64 bytes.

Without a type, prints the bundle: every message and enum under $defs (refer to one as
<file>#/$defs/Task). With a type — a message or enum of a2a.proto, e.g. Task, SendMessageRequest,
AgentCard, TaskState — prints that type's schema with the definitions it uses.

Options:
  -h, --help  Show this help

Exit codes: 0 success, 2 usage error (e.g. an unknown type).`;

/** The edit distance of two strings, for suggestions. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(
        substitution,
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** The type names closest to a mistyped one: same letters in another case, a part, or a typo. */
export function closeNames(wanted: string, names: readonly string[] = SCHEMA_TYPE_NAMES): string[] {
  const lower = wanted.toLowerCase();
  const scored = names
    .map((name) => {
      const candidate = name.toLowerCase();
      if (candidate === lower) return { name, score: 0 };
      if (lower.length >= 3 && candidate.includes(lower)) return { name, score: 1 };
      const edits = distance(lower, candidate);
      return { name, score: edits <= Math.max(2, Math.floor(lower.length / 4)) ? 1 + edits : -1 };
    })
    .filter((entry) => entry.score >= 0)
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, 6).map((entry) => entry.name);
}

function typeOf(positionals: readonly string[]): string | undefined {
  if (positionals.length > 1) throw new UsageFailure(`unexpected argument "${positionals[1]}"`);
  const [name] = positionals;
  if (name === undefined || isSchemaTypeName(name)) return name;
  const close = closeNames(name);
  const hint =
    close.length > 0
      ? `did you mean ${close.join(', ')}?`
      : 'types are the messages and enums of a2a.proto, e.g. Task, Message, AgentCard, TaskState';
  throw new UsageFailure(`unknown message or enum "${name}"; ${hint}`);
}

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  let type: string | undefined;
  try {
    const { values, positionals } = parseCommandLine({
      args,
      options: { help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
    if (values.help === true) {
      process.stdout.write(`${HELP}\n`);
      return Promise.resolve(ExitCode.Success);
    }
    type = typeOf(positionals);
  } catch (error) {
    if (!(error instanceof UsageFailure)) throw error;
    process.stderr.write(`tandem schema: ${error.message}\n`);
    process.stderr.write('Run `tandem schema --help` for the usage.\n');
    return Promise.resolve(ExitCode.Usage);
  }
  const schema =
    type === undefined || !isSchemaTypeName(type) ? jsonSchemaBundle() : jsonSchemaOf(type);
  process.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
  return Promise.resolve(ExitCode.Success);
}
