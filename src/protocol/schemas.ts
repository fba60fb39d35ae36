/**
 * Builds a valibot schema for every proto message from the generated descriptors, so that the
 * validators can never disagree with the proto. Schemas are built on first use and cached: a
 * process only pays for the messages it actually validates.
 *
 * Rules (issue #2, spec 5.7): fields are named by their JSON names (the validators accept proto
 * names too, by renaming first: see field-names.ts); `REQUIRED` fields must be present (required repeated fields
 * non-empty, required strings non-empty unless a field rule allows it); a oneof holds exactly one
 * member; enum strings must be known names and `UNSPECIFIED` is refused where a value is required;
 * numbers and strings keep their proto types (nothing is coerced); unknown fields are dropped;
 * `null` stands for "not set" on optional fields (ProtoJSON), except on `google.protobuf.Value`
 * where it is the JSON null.
 */

import * as v from 'valibot';
import type { FieldDescriptor, MessageDescriptor } from './descriptor.js';
import { fieldRules, type FieldRule } from './field-rules.js';
import { enumDescriptors, messageDescriptors } from './generated/descriptors.js';
import { usesProtoNames } from './generated/proto-names.js';

/** A schema of any input and output; narrowed to the message type at the public boundary. */
export type AnySchema = v.GenericSchema<unknown, unknown>;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?Z$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/\-_]*={0,2}$/;

/** Describes a received value for an error message without echoing large inputs. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `a string ("${value.slice(0, 37)}...")` : `"${value}"`;
    case 'number':
      return `the number ${value}`;
    case 'boolean':
      return `${value}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** Whether a string is an RFC 3339 UTC timestamp with a `Z` suffix naming a real instant. */
export function isUtcTimestamp(value: string): boolean {
  const m = TIMESTAMP_PATTERN.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day >= 1 && day <= daysInMonth;
}

/** Whether a string is base64 as ProtoJSON accepts it (standard or URL-safe, padding optional). */
export function isBase64(value: string): boolean {
  if (!BASE64_PATTERN.test(value)) return false;
  const unpadded = value.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return false;
  return unpadded.length === value.length || value.length % 4 === 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const objectSchema = v.custom<Record<string, unknown>>(
  isPlainObject,
  (issue) => `must be a JSON object, got ${describeValue(issue.input)}`,
);

const stringSchema = v.string((issue) => `must be a string, got ${describeValue(issue.input)}`);

function scalarSchema(field: FieldDescriptor, rule: FieldRule | undefined): AnySchema {
  switch (field.type) {
    case 'string':
      return field.required && !field.repeated && !field.map && !rule?.allowEmpty
        ? v.pipe(stringSchema, v.minLength(1, 'must not be empty'))
        : stringSchema;
    case 'bytes':
      return v.pipe(
        stringSchema,
        v.check(isBase64, 'must be base64-encoded bytes (standard or URL-safe alphabet)'),
      );
    case 'int32': {
      const min = Math.max(rule?.min ?? INT32_MIN, INT32_MIN);
      const max = Math.min(rule?.max ?? INT32_MAX, INT32_MAX);
      const range = `between ${min} and ${max}`;
      return v.pipe(
        v.number((issue) => `must be a number, got ${describeValue(issue.input)}`),
        v.integer((issue) => `must be an integer, got ${describeValue(issue.input)}`),
        v.minValue(min, (issue) => `must be ${range}, got ${describeValue(issue.input)}`),
        v.maxValue(max, (issue) => `must be ${range}, got ${describeValue(issue.input)}`),
      );
    }
    case 'bool':
      return v.boolean((issue) => `must be true or false, got ${describeValue(issue.input)}`);
    case 'timestamp':
      return v.pipe(
        stringSchema,
        v.check(
          isUtcTimestamp,
          (issue) =>
            `must be an ISO-8601 UTC timestamp such as "2025-10-28T10:30:00.000Z", got ${describeValue(issue.input)}`,
        ),
      );
    case 'struct':
      return objectSchema;
    case 'value':
      return v.unknown();
    case 'enum': {
      const values = enumDescriptors[field.typeName as keyof typeof enumDescriptors].values;
      const allowed: readonly string[] = field.required ? values.slice(1) : values;
      return v.picklist(
        allowed,
        (issue) => `must be one of ${allowed.join(', ')}; got ${describeValue(issue.input)}`,
      );
    }
    case 'message':
      return v.lazy(() => schemaOf(field.typeName as string));
  }
}

function fieldSchema(message: MessageDescriptor, field: FieldDescriptor): AnySchema {
  const rule = fieldRules[message.name]?.[field.name];
  const item = scalarSchema(field, rule);
  let schema: AnySchema = item;
  if (field.repeated) {
    const array = v.array(item, (issue) => `must be an array, got ${describeValue(issue.input)}`);
    schema =
      field.required && !rule?.allowEmpty
        ? v.pipe(array, v.minLength(1, 'must contain at least one element'))
        : array;
  } else if (field.map) {
    schema = v.pipe(objectSchema, v.record(v.string(), item));
  }
  if (field.required) return schema;
  // ProtoJSON: null means "not set" for every field except google.protobuf.Value.
  // The nulls themselves are dropped by the message's schema (see `withoutNulls`).
  if (field.type === 'value' && !field.repeated && !field.map) return v.optional(schema);
  return v.nullish(schema);
}

/**
 * Removes the keys of optional fields sent as `null` ("not set" in ProtoJSON), so that the parsed
 * value has no key where the input had no value. Rebuilds the object only when a null is present.
 */
function withoutNulls(
  message: MessageDescriptor,
): (value: Record<string, unknown>) => Record<string, unknown> {
  const nullable = message.fields
    .filter((f) => !f.required && !(f.type === 'value' && !f.repeated && !f.map))
    .map((f) => f.name);
  return (value) => {
    if (!nullable.some((name) => value[name] === null)) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (value[key] !== null || !nullable.includes(key)) out[key] = value[key];
    }
    return out;
  };
}

/** Whether a oneof member counts as set: `null` is "not set" except for `google.protobuf.Value`. */
function isSet(field: FieldDescriptor, value: unknown): boolean {
  return field.type === 'value' ? value !== undefined : value !== undefined && value !== null;
}

function descriptorOf(messageName: string): MessageDescriptor {
  const descriptor = (messageDescriptors as Record<string, MessageDescriptor | undefined>)[
    messageName
  ];
  if (descriptor === undefined) throw new TypeError(`Unknown proto message ${messageName}`);
  return descriptor;
}

/** The violations of the oneofs of one message object (spec: exactly one member set). */
function oneofViolations(message: MessageDescriptor, value: Record<string, unknown>): string[] {
  const violations: string[] = [];
  for (const oneof of message.oneofs) {
    const set = oneof.fields.filter((name) =>
      isSet(message.fields.find((f) => f.name === name) as FieldDescriptor, value[name]),
    );
    if (set.length === 1) continue;
    const names = oneof.fields.join(', ');
    violations.push(
      set.length === 0
        ? `must set exactly one of ${names} (${oneof.name}); none is set`
        : `must set exactly one of ${names} (${oneof.name}); found ${set.join(' and ')}`,
    );
  }
  return violations;
}

/** A oneof violation found by {@link findOneofViolations}, with its path. */
export interface OneofIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * Walks input along the message descriptors and reports every oneof violation, including in
 * objects that also have other violations. Valibot skips object-level checks of objects that
 * failed elsewhere, so the validators run this on failed parses to still list every violation.
 * The input must use JSON names only (see `withJsonFieldNames`).
 */
export function findOneofViolations(messageName: string, input: unknown): OneofIssue[] {
  const issues: OneofIssue[] = [];
  const visit = (name: string, value: unknown, path: (string | number)[]): void => {
    if (!isPlainObject(value)) return;
    const message = descriptorOf(name);
    for (const text of oneofViolations(message, value)) issues.push({ path, message: text });
    for (const field of message.fields) {
      if (field.type !== 'message') continue;
      const child = value[field.name];
      const typeName = field.typeName as string;
      if (field.repeated && Array.isArray(child)) {
        child.forEach((item, i) => visit(typeName, item, [...path, field.name, i]));
      } else if (field.map && isPlainObject(child)) {
        for (const [key, item] of Object.entries(child))
          visit(typeName, item, [...path, field.name, key]);
      } else if (!field.repeated && !field.map) {
        visit(typeName, child, [...path, field.name]);
      }
    }
  };
  visit(messageName, input, []);
  return issues;
}

function buildSchema(message: MessageDescriptor): AnySchema {
  const entries: Record<string, AnySchema> = {};
  for (const field of message.fields) entries[field.name] = fieldSchema(message, field);
  const object = v.object(entries, (issue) =>
    issue.path ? 'is required' : `must be a JSON object, got ${describeValue(issue.input)}`,
  );
  const dropNulls = v.transform(withoutNulls(message));
  const plain = plainObjectSchema(message);
  if (message.oneofs.length === 0) return v.pipe(plain, object, dropNulls);
  return v.pipe(
    plain,
    object,
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      for (const text of oneofViolations(message, dataset.value)) {
        addIssue({ message: text });
      }
    }),
    dropNulls,
  );
}

/** The violation of an object that writes a field under its proto name (see below). */
export const PROTO_NAMES_USED = 'uses proto field names';

/**
 * The first step of a message's schema: a JSON object, and one that names its fields by their
 * JSON names only. An object that uses a proto name (`history_length`) fails here; the
 * validators then rename along the descriptors and parse again (validation.ts). The check is
 * generated per message (generated/proto-names.ts) and costs the common case one fast property
 * read per field whose two names differ, and no step of its own.
 */
function plainObjectSchema(message: MessageDescriptor): AnySchema {
  const usesProtoName = usesProtoNames[message.name];
  if (usesProtoName === undefined) return objectSchema;
  return v.custom<Record<string, unknown>>(
    (value) => isPlainObject(value) && !usesProtoName(value),
    (issue) =>
      isPlainObject(issue.input)
        ? PROTO_NAMES_USED
        : `must be a JSON object, got ${describeValue(issue.input)}`,
  );
}

const cache = new Map<string, AnySchema>();

/** The schema of a proto message by name, built on first use. */
export function schemaOf(messageName: string): AnySchema {
  let schema = cache.get(messageName);
  if (schema === undefined) {
    schema = buildSchema(descriptorOf(messageName));
    cache.set(messageName, schema);
  }
  return schema;
}
