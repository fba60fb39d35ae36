/**
 * The two spellings of a field. ProtoJSON writes the lowerCamelCase JSON name (`historyLength`)
 * and its parsers accept the proto name too (`history_length`): clients that build requests from
 * the proto's field names are common. Tandem reads both, at every depth, and always hands out
 * the JSON name; writing a field under both names in one object is an error, as in protobuf's
 * own parsers.
 *
 * The hot path is an object that uses JSON names only: the schemas tell it so by one property
 * read per field whose two names differ (generated/proto-names.ts) and pass it on as it is. The
 * rest of this module runs only when an object does use a proto name.
 */

import type { FieldDescriptor, MessageDescriptor } from './descriptor.js';
import { messageDescriptors } from './generated/descriptors.js';
import { usesProtoNames } from './generated/proto-names.js';

/** A field whose proto name is not its JSON name. */
interface Alias {
  readonly protoName: string;
  readonly name: string;
}

/** Finds a field by either of its names. */
export function fieldNamed(message: MessageDescriptor, key: string): FieldDescriptor | undefined {
  return message.fields.find((field) => field.name === key || field.protoName === key);
}

/** The message of a message-typed field, or `undefined` for other kinds. */
function messageOfField(field: FieldDescriptor): MessageDescriptor | undefined {
  if (field.type !== 'message') return undefined;
  return (messageDescriptors as Record<string, MessageDescriptor | undefined>)[
    field.typeName as string
  ];
}

/** The description of a field written under both of its names. */
function givenTwice(alias: Alias): string {
  return `given twice, as ${alias.name} and ${alias.protoName}`;
}

/** One object with its fields under their JSON names, and the fields that were written twice. */
interface RenamedFields {
  readonly value: Record<string, unknown>;
  /** Fields given under both names; `value` keeps the JSON-name spelling of each. */
  readonly twice: readonly Alias[];
}

/** Whether an object has its own key, not holding `undefined` (absent, as JSON.stringify has it). */
const has = (value: { readonly [key: string]: unknown }, key: string): boolean =>
  Object.hasOwn(value, key) && value[key] !== undefined;

/**
 * A copy of one object holding the message's fields under their JSON names. Unknown keys are left
 * out (the schema would drop them), so that no key of the input can reach the copy's prototype.
 */
function renameFields(
  message: MessageDescriptor,
  value: { readonly [key: string]: unknown },
): RenamedFields {
  const out: Record<string, unknown> = {};
  const twice: Alias[] = [];
  for (const field of message.fields) {
    const named = has(value, field.name);
    const protoNamed = field.protoName !== field.name && has(value, field.protoName);
    if (named && protoNamed) twice.push({ name: field.name, protoName: field.protoName });
    if (named) out[field.name] = value[field.name];
    else if (protoNamed) out[field.name] = value[field.protoName];
    else if (Object.hasOwn(value, field.name)) out[field.name] = undefined;
  }
  return { value: out, twice };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field written twice somewhere in a request, with the path of the object that holds it. */
export interface TwiceGivenField {
  readonly path: readonly (string | number)[];
  readonly description: string;
}

/** A whole input with JSON names at every depth, for the failure path of the validators. */
export interface ResolvedInput {
  /** The input with JSON names only; of a field given twice, the JSON-name spelling is kept. */
  readonly value: unknown;
  readonly twice: readonly TwiceGivenField[];
}

/**
 * Renames proto-named fields at every depth, along the descriptors (messages, repeated and map
 * values; never inside Struct or Value, which are data). Objects without proto names are shared,
 * not copied. The validators run it only on a failed parse, to report what valibot skipped.
 */
export function withJsonFieldNames(messageName: string, input: unknown): ResolvedInput {
  const twice: TwiceGivenField[] = [];
  const visit = (
    message: MessageDescriptor,
    value: unknown,
    path: (string | number)[],
  ): unknown => {
    if (!isRecord(value)) return value;
    let out = value;
    if (usesProtoNames[message.name]?.(value) === true) {
      const renamed = renameFields(message, value);
      out = renamed.value;
      for (const alias of renamed.twice) {
        twice.push({ path: [...path, alias.name], description: givenTwice(alias) });
      }
    }
    let copied = out !== value;
    for (const field of message.fields) {
      const child = messageOfField(field);
      const item = out[field.name];
      if (child === undefined || item === undefined || item === null) continue;
      let next: unknown = item;
      if (field.repeated && Array.isArray(item)) {
        const items = item.map((element, i) => visit(child, element, [...path, field.name, i]));
        if (items.some((element, i) => element !== item[i])) next = items;
      } else if (field.map && isRecord(item)) {
        const entries = Object.entries(item).map(
          ([key, element]) => [key, visit(child, element, [...path, field.name, key])] as const,
        );
        if (entries.some(([key, element]) => element !== item[key])) {
          next = Object.fromEntries(entries);
        }
      } else if (!field.repeated && !field.map) {
        next = visit(child, item, [...path, field.name]);
      }
      if (next === item) continue;
      if (!copied) {
        out = { ...out };
        copied = true;
      }
      out[field.name] = next;
    }
    return out;
  };
  const root = (messageDescriptors as Record<string, MessageDescriptor | undefined>)[messageName];
  if (root === undefined) throw new TypeError(`Unknown proto message ${messageName}`);
  return { value: visit(root, input, []), twice };
}

/**
 * A violation's path as the input spelled it: where a field was written under its proto name
 * only, the path names it so (`configuration.history_length`), so that the caller finds it in
 * what it sent.
 */
export function spelledAsSent(
  messageName: string,
  input: unknown,
  path: readonly (string | number)[],
): (string | number)[] {
  let message = (messageDescriptors as Record<string, MessageDescriptor | undefined>)[messageName];
  let node = input;
  let container: FieldDescriptor | undefined;
  const out: (string | number)[] = [];
  for (const key of path) {
    let spelled = key;
    if (container !== undefined) {
      message = messageOfField(container);
      container = undefined;
    } else if (message !== undefined && typeof key === 'string' && isRecord(node)) {
      const field = message.fields.find((f) => f.name === key);
      if (field !== undefined && node[key] === undefined && node[field.protoName] !== undefined) {
        spelled = field.protoName;
      }
      if (field !== undefined && (field.repeated || field.map)) container = field;
      else message = field === undefined ? undefined : messageOfField(field);
    } else {
      message = undefined;
    }
    out.push(spelled);
    node =
      typeof node === 'object' && node !== null
        ? (node as Record<string, unknown>)[spelled]
        : undefined;
  }
  return out;
}
