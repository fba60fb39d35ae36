/**
 * Tandem's JSON Schema against the spec's non-normative bundle generated from the proto
 * (spec/a2a.schema.json): the same messages, the same fields with the same kinds of values, and
 * every difference of rules one of those docs/json-schema.md lists. The per-message rules (required
 * fields, oneofs, bounds) are rendered here and must appear in the doc as they are, so that the doc
 * cannot fall behind the schema.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { enumDescriptors, messageDescriptors } from '../../src/protocol/generated/descriptors.js';
import { jsonSchemaBundle, type JsonSchema } from '../../src/protocol/json-schema.js';

type Schema = { readonly [keyword: string]: unknown };

const reference = JSON.parse(
  readFileSync(new URL('../../spec/a2a.schema.json', import.meta.url), 'utf8'),
) as { $schema: string; definitions: Record<string, Schema> };
const doc = readFileSync(new URL('../../docs/json-schema.md', import.meta.url), 'utf8');
const ours = jsonSchemaBundle().$defs as Record<string, JsonSchema>;

/** The reference keys definitions by a display title ("Agent Card"): the name without spaces. */
const referenceDefinitions = new Map(
  Object.entries(reference.definitions).map(([title, schema]) => [title.replace(/ /g, ''), schema]),
);
const WELL_KNOWN = ['Struct', 'Timestamp', 'Value'];

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const schemaAt = (schema: Schema, key: string): Schema => {
  const value = schema[key];
  if (!isSchema(value)) throw new Error(`no schema under ${key}`);
  return value;
};

/** The kind of value a property of the reference holds: `int32`, `message:Task`, `repeated string`... */
function referenceKind(schema: Schema): string {
  if (schema.type === 'array') return `repeated ${referenceKind(schemaAt(schema, 'items'))}`;
  if (schema.type === 'object' && isSchema(schema.additionalProperties)) {
    return `map ${referenceKind(schema.additionalProperties)}`;
  }
  const target = typeof schema.$ref === 'string' ? schema.$ref : undefined;
  if (target !== undefined) {
    const wellKnown = /^google\.protobuf\.(\w+)\.jsonschema\.json$/.exec(target)?.[1];
    if (wellKnown !== undefined) return wellKnown.toLowerCase();
    const message = /^lf\.a2a\.v1\.(\w+)\.jsonschema\.json$/.exec(target)?.[1];
    if (message !== undefined) return `message:${message}`;
  }
  if (Array.isArray(schema.anyOf)) {
    if (typeof schema.title === 'string') return `enum:${schema.title.replace(/ /g, '')}`;
    return 'int32';
  }
  if (schema.type === 'string') return typeof schema.pattern === 'string' ? 'bytes' : 'string';
  if (schema.type === 'boolean') return 'bool';
  throw new Error(`unexpected reference property ${JSON.stringify(schema)}`);
}

/** The same kinds, read from Tandem's schema. */
function ourKind(schema: Schema): string {
  if (Array.isArray(schema.anyOf)) return ourKind(schema.anyOf[0] as Schema);
  const type = Array.isArray(schema.type) ? (schema.type[0] as unknown) : schema.type;
  if (type === 'array') return `repeated ${ourKind(schemaAt(schema, 'items'))}`;
  if (type === 'object') {
    return isSchema(schema.additionalProperties)
      ? `map ${ourKind(schema.additionalProperties)}`
      : 'struct';
  }
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/$defs/', '');
    return `${name in enumDescriptors ? 'enum' : 'message'}:${name}`;
  }
  if (type === 'string') {
    if (schema.contentEncoding === 'base64') return 'bytes';
    return schema.format === 'date-time' ? 'timestamp' : 'string';
  }
  if (type === 'integer') return 'int32';
  if (type === 'boolean') return 'bool';
  if (type === undefined) return 'value';
  throw new Error(`unexpected property ${JSON.stringify(schema)}`);
}

const propertiesOf = (schema: Schema): Record<string, Schema> =>
  (schema.properties ?? {}) as Record<string, Schema>;

describe('spec/a2a.schema.json and Tandem’s schema', () => {
  it('are both draft 2020-12 and define the same messages', () => {
    expect(reference.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const messages = Object.keys(messageDescriptors);
    expect([...referenceDefinitions.keys()].sort()).toEqual([...messages, ...WELL_KNOWN].sort());
  });

  it.each(Object.keys(messageDescriptors))(
    '%s has the same fields holding the same kinds of values',
    (name) => {
      const theirs = referenceDefinitions.get(name) as Schema;
      const mine = ours[name] as Schema;
      const kinds = (schema: Schema, kind: (s: Schema) => string): Record<string, string> =>
        Object.fromEntries(Object.entries(propertiesOf(schema)).map(([k, s]) => [k, kind(s)]));
      expect(kinds(mine, ourKind)).toEqual(kinds(theirs, referenceKind));
    },
  );

  it.each(Object.keys(messageDescriptors))(
    '%s differs only as docs/json-schema.md lists',
    (name) => {
      const theirs = referenceDefinitions.get(name) as Schema;
      const mine = ours[name] as Schema;
      const message = messageDescriptors[name as keyof typeof messageDescriptors];
      // Proto names: the reference accepts them as patternProperties; Tandem's schema does not.
      const aliases = message.fields.filter((f) => f.protoName !== f.name).map((f) => f.protoName);
      const patterns = Object.keys(theirs.patternProperties ?? {});
      expect(patterns.sort()).toEqual(aliases.map((alias) => `^(${alias})$`).sort());
      expect(mine).not.toHaveProperty('patternProperties');
      // Unknown fields: refused by the reference, allowed by Tandem (spec 5.7).
      expect(theirs.additionalProperties).toBe(false);
      expect(mine).not.toHaveProperty('additionalProperties');
      // Required fields and oneofs: none in the reference.
      expect(theirs).not.toHaveProperty('required');
      expect(theirs).not.toHaveProperty('oneOf');
      // Enums: the reference also takes numbers, and UNSPECIFIED everywhere.
      for (const [field, schema] of Object.entries(propertiesOf(theirs))) {
        const kind = referenceKind(schema);
        if (!kind.startsWith('enum:')) continue;
        const values = enumDescriptors[kind.slice(5) as keyof typeof enumDescriptors].values;
        const [unspecified, names, number] = schema.anyOf as Schema[];
        expect(unspecified, field).toEqual({ pattern: `^${values[0]}$`, type: 'string' });
        expect(names, field).toEqual({ enum: values.slice(1), type: 'string' });
        expect(number, field).toEqual({
          maximum: 2147483647,
          minimum: -2147483648,
          type: 'integer',
        });
      }
    },
  );

  it('int32, bytes, well-known types, nulls and references are as the doc says', () => {
    const listTasks = propertiesOf(referenceDefinitions.get('ListTasksRequest') as Schema);
    expect(listTasks.pageSize?.anyOf).toEqual([
      { maximum: 2147483647, minimum: -2147483648, type: 'integer' },
      { pattern: '^-?[0-9]+$', type: 'string' },
    ]);
    expect(propertiesOf(referenceDefinitions.get('Part') as Schema).raw).toMatchObject({
      pattern: '^[A-Za-z0-9+/]*={0,2}$',
      type: 'string',
    });
    const wellKnown = (name: string): Schema => {
      const { $schema: _, title: __, ...rest } = referenceDefinitions.get(name) as Schema;
      return rest;
    };
    expect(wellKnown('Timestamp')).toEqual({ format: 'date-time', type: 'string' });
    expect(wellKnown('Struct')).toEqual({ type: 'object' });
    expect(wellKnown('Value')).toEqual({});
    // No null anywhere, and references to files outside the bundle.
    const text = JSON.stringify(reference);
    expect(text).not.toContain('"null"');
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(refs.length).toBeGreaterThan(40);
    expect(refs.filter((target) => !target.endsWith('.jsonschema.json'))).toEqual([]);
  });
});

/** The rules of one message that the reference does not have, as a row of the doc's table. */
function rulesRow(name: string, schema: Schema): string | undefined {
  const properties = propertiesOf(schema);
  const required = ((schema.required ?? []) as string[]).map((field) => {
    const property = properties[field] as Schema;
    const notes: string[] = [];
    if (property.minLength === 1) notes.push('non-empty');
    if (property.minItems === 1) notes.push('≥ 1 item');
    if (isSchema(property.not)) notes.push(`not ${String(property.not.const)}`);
    return `\`${field}\`${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
  });
  const oneOf = Array.isArray(schema.oneOf)
    ? (schema.oneOf as Schema[]).map((member) => `\`${(member.required as string[])[0]}\``)
    : [];
  const bounds = Object.entries(properties).flatMap(([field, property]) => {
    const integer: unknown = Array.isArray(property.type) ? property.type[0] : property.type;
    if (integer !== 'integer') return [];
    const { minimum, maximum } = property as { minimum: number; maximum: number };
    if (minimum === -2147483648 && maximum === 2147483647) return [];
    return [`\`${field}\` ${minimum}..${maximum === 2147483647 ? '' : maximum}`];
  });
  if (required.length + oneOf.length + bounds.length === 0) return undefined;
  const cell = (items: string[]): string => items.join(', ');
  return `| \`${name}\` | ${cell(required)} | ${cell(oneOf)} | ${cell(bounds)} |`;
}

describe('docs/json-schema.md', () => {
  it('lists the rules of every message that the reference does not have, as the schema has them', () => {
    const rows = Object.entries(ours)
      .filter(([name]) => name in messageDescriptors)
      .flatMap(([name, schema]) => rulesRow(name, schema) ?? []);
    const table = [
      '| message | required | exactly one of | integer bounds |',
      '| ------- | -------- | -------------- | -------------- |',
      ...rows,
    ].join('\n');
    const start = '<!-- rules:start -->\n';
    const end = '\n<!-- rules:end -->';
    const block = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end));
    // Compared cell by cell: the formatter pads the doc's columns.
    const cells = (markdown: string): string[][] =>
      markdown
        .trim()
        .split('\n')
        .map((line) =>
          line
            .split('|')
            .map((cell) => cell.trim().replace(/^-+$/, '-'))
            .filter((cell, i, all) => i > 0 && i < all.length - 1),
        );
    expect(
      cells(block),
      `the table between the rules markers of docs/json-schema.md:\n${table}`,
    ).toEqual(cells(table));
  });
});
