/**
 * Parsing of protocol objects received from the wire: every request object a server receives and
 * every response object a client receives. A failed parse lists every violated field by path with
 * a reason, ready to become a `google.rpc.BadRequest` detail.
 */

import * as v from 'valibot';
import type { FieldViolation } from './error-details.js';
import { InvalidParamsError } from './errors.js';
import type { MessageTypes } from './generated/types.js';
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

/** Formats a path (valibot's, or a plain key list) as `message.parts[0].text`. */
function formatPath(
  path: readonly (v.IssuePathItem | string | number)[] | undefined,
  root: string,
): string {
  if (!path || path.length === 0) return root;
  let out = '';
  for (const item of path) {
    const key = typeof item === 'object' ? item.key : item;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * Parses and validates a proto message in its JSON form. Unknown fields are dropped from the
 * returned value and nothing is coerced: the value either has the proto's types or the result
 * lists every field that does not.
 */
export function parseMessage<K extends keyof MessageTypes>(
  messageName: K,
  input: unknown,
  options: ParseOptions = {},
): ParseResult<MessageTypes[K]> {
  const result = v.safeParse(schemaOf(messageName), input, { abortEarly: false });
  if (result.success) return { success: true, value: result.output as MessageTypes[K] };
  const root = options.root ?? messageName;
  const violations: FieldViolation[] = [];
  const seen = new Set<string>();
  const add = (field: string, description: string): void => {
    const key = `${field}\u0000${description}`;
    if (seen.has(key)) return;
    seen.add(key);
    violations.push({ field, description });
  };
  for (const issue of result.issues) add(formatPath(issue.path, root), issue.message);
  // Object-level oneof checks are skipped for objects that failed elsewhere; add them back.
  for (const issue of findOneofViolations(messageName, input)) {
    add(formatPath(issue.path, root), issue.message);
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
