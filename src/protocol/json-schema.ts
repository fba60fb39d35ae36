/**
 * JSON Schema (draft 2020-12) of every proto message and enum, for other people's contract
 * tests. Computed from the same descriptors and field rules as the types and the validators, so
 * it cannot drift from them; docs/json-schema.md explains each mapping and each difference from
 * the spec's non-normative bundle.
 *
 * The schema describes ProtoJSON as it is written: JSON names only (spec 5.5). Proto names,
 * which the validators also read, are left out, so that a response written with one fails a
 * contract test.
 */

import type { FieldDescriptor, MessageDescriptor } from './descriptor.js';
import { fieldRules, type FieldRule } from './field-rules.js';
import { enumDescriptors, messageDescriptors } from './generated/descriptors.js';
import type { EnumTypes, MessageTypes } from './generated/types.js';
import type { JsonValue } from './json.js';

/** A JSON Schema document or subschema, as plain JSON. */
export type JsonSchema = { [keyword: string]: JsonValue };

/** The dialect of every schema here. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The name of a proto message or enum, the unit `jsonSchemaOf` describes. */
export type SchemaTypeName = keyof MessageTypes | keyof EnumTypes;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * A UTC timestamp with `Z` (spec 5.6.1), as the validators accept it. Whether the day exists in
 * its month (`02-30`) is beyond a pattern; `format: date-time` says so to validators that assert
 * formats.
 */
export const TIMESTAMP_PATTERN =
  '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:([0-5]\\d|60)(\\.\\d{1,9})?Z$';

/** Base64 as ProtoJSON reads it: standard or URL-safe alphabet, padding optional but whole. */
export const BASE64_PATTERN =
  '^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$';

const messages = messageDescriptors as Record<string, MessageDescriptor | undefined>;
const enums = enumDescriptors as Record<string, { readonly values: readonly string[] } | undefined>;

const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });

function scalarSchema(field: FieldDescriptor, rule: FieldRule | undefined): JsonSchema {
  switch (field.type) {
    case 'string':
      return field.required && !field.repeated && !field.map && !rule?.allowEmpty
        ? { type: 'string', minLength: 1 }
        : { type: 'string' };
    case 'bytes':
      return { type: 'string', contentEncoding: 'base64', pattern: BASE64_PATTERN };
    case 'int32':
      return {
        type: 'integer',
        minimum: Math.max(rule?.min ?? INT32_MIN, INT32_MIN),
        maximum: Math.min(rule?.max ?? INT32_MAX, INT32_MAX),
      };
    case 'bool':
      return { type: 'boolean' };
    case 'timestamp':
      return { type: 'string', format: 'date-time', pattern: TIMESTAMP_PATTERN };
    case 'struct':
      return { type: 'object' };
    case 'value':
      return {};
    case 'enum': {
      const name = field.typeName as string;
      if (!field.required) return ref(name);
      const unspecified = enums[name]?.values[0] as string;
      return { ...ref(name), not: { const: unspecified } };
    }
    case 'message':
      return ref(field.typeName as string);
  }
}

/** `null` reads as "not set" on an optional field (ProtoJSON), except on google.protobuf.Value. */
function orNull(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (typeof type === 'string' && schema.$ref === undefined)
    return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

function fieldSchema(message: MessageDescriptor, field: FieldDescriptor): JsonSchema {
  const rule = fieldRules[message.name]?.[field.name];
  const item = scalarSchema(field, rule);
  let schema = item;
  if (field.repeated) {
    schema = { type: 'array', items: item };
    if (field.required && !rule?.allowEmpty) schema.minItems = 1;
  } else if (field.map) {
    schema = { type: 'object', additionalProperties: item };
  }
  const isValue = field.type === 'value' && !field.repeated && !field.map;
  if (!field.required && !isValue) schema = orNull(schema);
  if (field.deprecated) schema = { ...schema, deprecated: true };
  return schema;
}

/** A oneof member counts as set when present and not null (any value, for a Value member). */
function memberSet(field: FieldDescriptor): JsonSchema {
  // Restating the property keeps the subschema acceptable to validators in strict mode (Ajv's
  // strictRequired), which want every required name declared next to it.
  if (field.type === 'value') return { required: [field.name], properties: { [field.name]: {} } };
  return { required: [field.name], properties: { [field.name]: { not: { type: 'null' } } } };
}

function messageSchema(message: MessageDescriptor): JsonSchema {
  const properties: JsonSchema = {};
  for (const field of message.fields) properties[field.name] = fieldSchema(message, field);
  const schema: JsonSchema = { title: message.name, type: 'object', properties };
  const required = message.fields.filter((field) => field.required).map((field) => field.name);
  if (required.length > 0) schema.required = required;
  const oneofs = message.oneofs.map((oneof) => ({
    oneOf: oneof.fields.map((name) =>
      memberSet(message.fields.find((field) => field.name === name) as FieldDescriptor),
    ),
  }));
  if (oneofs.length === 1) Object.assign(schema, oneofs[0]);
  else if (oneofs.length > 1) schema.allOf = oneofs;
  return schema;
}

function enumSchema(name: string, values: readonly string[]): JsonSchema {
  return { title: name, type: 'string', enum: [...values] };
}

function definitionOf(name: string): JsonSchema | undefined {
  const message = messages[name];
  if (message !== undefined) return messageSchema(message);
  const values = enums[name]?.values;
  return values === undefined ? undefined : enumSchema(name, values);
}

/** The message and enum names a type refers to, itself excluded unless it refers to itself. */
function referencedTypes(name: string): string[] {
  const found = new Set<string>();
  const visit = (current: string): void => {
    for (const field of messages[current]?.fields ?? []) {
      const target = field.typeName;
      if (target === undefined || found.has(target)) continue;
      found.add(target);
      visit(target);
    }
  };
  visit(name);
  return [...found];
}

/** Every proto message and enum name, messages first, in proto order. */
export const SCHEMA_TYPE_NAMES: readonly SchemaTypeName[] = [
  ...(Object.keys(messageDescriptors) as (keyof MessageTypes)[]),
  ...(Object.keys(enumDescriptors) as (keyof EnumTypes)[]),
];

/** Whether a string names a proto message or enum. */
export function isSchemaTypeName(name: string): name is SchemaTypeName {
  return Object.hasOwn(messageDescriptors, name) || Object.hasOwn(enumDescriptors, name);
}

/**
 * The JSON Schema of one message or enum, self-contained: the `$defs` it references are
 * included, under their proto names. A fresh object on every call.
 */
export function jsonSchemaOf(typeName: SchemaTypeName): JsonSchema {
  const root = definitionOf(typeName);
  if (root === undefined) throw new TypeError(`Unknown proto message or enum ${String(typeName)}`);
  const defs: JsonSchema = {};
  for (const name of referencedTypes(typeName)) defs[name] = definitionOf(name) as JsonSchema;
  const schema: JsonSchema = { $schema: JSON_SCHEMA_DIALECT, ...root };
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return schema;
}

/**
 * Every message and enum of the A2A proto in one JSON Schema document, each under
 * `$defs/<name>`; refer to one as `<document>#/$defs/Task`. A fresh object on every call.
 */
export function jsonSchemaBundle(): JsonSchema {
  const defs: JsonSchema = {};
  for (const name of SCHEMA_TYPE_NAMES) defs[name] = definitionOf(name) as JsonSchema;
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: 'A2A 1.0 protocol messages',
    description:
      'Every message and enum of a2a.proto in ProtoJSON form (JSON names), with the rules of ' +
      "Tandem's validators: required fields, exactly one member per oneof, enum names, int32 " +
      'ranges, UTC timestamps, base64 bytes. Generated by Tandem from the proto descriptors.',
    $defs: defs,
  };
}
