/**
 * Parsing of protocol objects received from the wire: every request object a server receives and
 * every response object a client receives. A failed parse lists every violated field by path with
 * a reason, ready to become a `google.rpc.BadRequest` detail.
 */

import * as v from 'valibot';
import type { FieldViolation } from './error-details.js';
import { InvalidParamsError } from './errors.js';
import type { MessageTypes } from './generated/types.js';
import { spelledAsSent, withJsonFieldNames } from './field-names.js';
import { findOneofViolations, schemaOf } from './schemas.js';

/** The outcome of a parse: the typed value, or every violation found. */
export type ParseResult<T> =
  | { readonly success: true; readonly value: T }
  | { readonly success: false; readonly violations: FieldViolation[] };

/** Options of {@link parseMessage}. */
export interface ParseOptions {
  /**
   * The name given to the object itself when it is not an object at all (e.g. `params`); field
   * paths below it are relative (`message.parts[0]`). Defaults to the message name.
   */
  readonly root?: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Formats a key list as `message.parts[0].text`. */
function formatPath(path: readonly unknown[], root: string): string {
  if (path.length === 0) return root;
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * Parses and validates a proto message in its JSON form, as ProtoJSON parsers read it: a field
 * may be named by its JSON name (`historyLength`) or its proto name (`history_length`), at every
 * depth, but not both in one object; the returned value uses JSON names only. Unknown fields are
 * dropped from the returned value and nothing is coerced: the value either has the proto's types
 * or the result lists every field that does not, named as the input spelled it.
 *
 * Enum values are their names. ProtoJSON parsers also accept an enum's number, but spec 5.5
 * requires the names on the wire, and a number is refused like any other unknown value.
 */
export function parseMessage<K extends keyof MessageTypes>(
  messageName: K,
  input: unknown,
  options: ParseOptions = {},
): ParseResult<MessageTypes[K]> {
  const schema = schemaOf(messageName);
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return { success: true, value: result.output as MessageTypes[K] };
  // The schemas read JSON names only. Rename proto-named fields (a field given under both names
  // keeps its JSON-name value and is reported) and parse again.
  const resolved = withJsonFieldNames(messageName, input);
  let issues: readonly v.BaseIssue<unknown>[] = result.issues;
  if (resolved.value !== input) {
    const renamed = v.safeParse(schema, resolved.value, { abortEarly: false });
    if (renamed.success && resolved.twice.length === 0) {
      return { success: true, value: renamed.output as MessageTypes[K] };
    }
    issues = renamed.issues ?? [];
  }
  const root = options.root ?? messageName;
  const violations: FieldViolation[] = [];
  const seen = new Set<string>();
  const add = (path: readonly (v.IssuePathItem | string | number)[] | undefined, text: string) => {
    const keys = (path ?? []).map((item) => (typeof item === 'object' ? item.key : item));
    const field = formatPath(spelledAsSent(messageName, input, keys as (string | number)[]), root);
    const key = `${field}\u0000${text}`;
    if (seen.has(key)) return;
    seen.add(key);
    violations.push({ field, description: text });
  };
  for (const twice of resolved.twice) add(twice.path, twice.description);
  for (const issue of issues) add(issue.path, issue.message);
  // Object-level oneof checks are skipped for objects that failed elsewhere; add them back.
  for (const issue of findOneofViolations(messageName, resolved.value)) {
    add(issue.path, issue.message);
  }
  return { success: false, violations };
}

/** Like {@link parseMessage}, but throws {@link InvalidParamsError} listing every violation. */
export function parseMessageOrThrow<K extends keyof MessageTypes>(
  messageName: K,
  input: unknown,
  options?: ParseOptions,
): MessageTypes[K] {
  const result = parseMessage(messageName, input, options);
  if (result.success) return result.value;
  throw InvalidParamsError.fromViolations(result.violations);
}
