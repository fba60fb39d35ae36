/**
 * The JSON Schema (src/protocol/json-schema.ts) against the fixture corpus, with a validator of
 * draft 2020-12 that other projects use (Ajv): every valid fixture is valid, every invalid one is
 * invalid except those whose rule a JSON Schema cannot state — listed below with the reason, and
 * checked to still be accepted so that the list cannot go stale.
 */

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { enumDescriptors, messageDescriptors } from '../../src/protocol/generated/descriptors.js';
import {
  BASE64_PATTERN,
  JSON_SCHEMA_DIALECT,
  SCHEMA_TYPE_NAMES,
  TIMESTAMP_PATTERN,
  jsonSchemaBundle,
  jsonSchemaOf,
} from '../../src/protocol/json-schema.js';
import { isBase64, isUtcTimestamp } from '../../src/protocol/schemas.js';
import { parseMessage } from '../../src/protocol/validation.js';
import { loadCorpus, walkFixture } from './fixture-corpus.js';

const corpus = loadCorpus();

/** Strict Ajv: unknown keywords fail; formats are annotations, as draft 2020-12 has them. */
function newAjv(): Ajv2020 {
  return new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false });
}

const ajv = newAjv();
const BUNDLE_ID = 'urn:test:a2a-bundle';
ajv.addSchema({ ...jsonSchemaBundle(), $id: BUNDLE_ID });
const validators = new Map<string, ValidateFunction>();
function validatorOf(type: string): ValidateFunction {
  let validate = validators.get(type);
  if (validate === undefined) {
    validate = ajv.getSchema(`${BUNDLE_ID}#/$defs/${type}`);
    if (validate === undefined) throw new Error(`no $defs/${type} in the bundle`);
    validators.set(type, validate);
  }
  return validate;
}

const errorsOf = (validate: ValidateFunction, value: unknown): unknown =>
  validate(value) ? [] : validate.errors;

/**
 * Invalid fixtures that a JSON Schema accepts, by the rule they break. The schema has one name per
 * field (ProtoJSON as written), so a field given under both names is an unknown field beside a
 * known one; and the length of a month is beyond a pattern.
 */
const NOT_EXPRESSIBLE: Readonly<Record<string, string>> = {
  'SendMessageRequest/history-length-given-twice':
    'a field given under both names: the schema knows JSON names only, and unknown fields are allowed',
  'SendMessageRequest/given-twice-null-counts':
    'a field given under both names: the schema knows JSON names only, and unknown fields are allowed',
  'StreamResponse/oneof-member-given-twice':
    'a oneof member given under both names: status_update is an unknown field to the schema',
  'StreamResponse/oneof-two-under-either-name':
    'a second oneof member under its proto name: status_update is an unknown field to the schema',
  'Task/timestamp-invalid-day':
    'a day beyond the length of its month: the pattern checks 01-31 (format: date-time says more to validators that assert formats)',
};

describe('the bundle', () => {
  it('is a valid draft 2020-12 schema under strict Ajv, with a definition per message and enum', () => {
    const bundle = jsonSchemaBundle();
    expect(bundle.$schema).toBe(JSON_SCHEMA_DIALECT);
    expect(newAjv().validateSchema(bundle)).toBe(true);
    expect(Object.keys(bundle.$defs as object)).toEqual([
      ...Object.keys(messageDescriptors),
      ...Object.keys(enumDescriptors),
    ]);
    expect(SCHEMA_TYPE_NAMES).toEqual(Object.keys(bundle.$defs as object));
  });

  it('describes enums as their names', () => {
    expect(jsonSchemaOf('Role')).toEqual({
      $schema: JSON_SCHEMA_DIALECT,
      title: 'Role',
      type: 'string',
      enum: ['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT'],
    });
  });
});

describe('valid fixtures', () => {
  it.each(corpus.valid.map((f) => [`${f.type}/${f.name}`, f] as const))(
    '%s is valid, and so is what parseMessage returns',
    (_, { type, input }) => {
      const validate = validatorOf(type);
      // The schema names fields by their JSON names only: a proto-named input is valid to the
      // validators, not to the schema (see the test below).
      if (walkFixture(type, input).renamed.length === 0) {
        expect(errorsOf(validate, input)).toEqual([]);
      }
      const parsed = parseMessage(type, input);
      if (!parsed.success) throw new Error(JSON.stringify(parsed.violations));
      expect(errorsOf(validate, JSON.parse(JSON.stringify(parsed.value)))).toEqual([]);
    },
  );

  it('written with proto names are refused where a required field is only so named', () => {
    const renamed = corpus.valid.filter((f) => walkFixture(f.type, f.input).renamed.length > 0);
    expect(renamed.length).toBeGreaterThan(5);
    expect(
      validatorOf('Message')({ message_id: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] }),
    ).toBe(false);
  });
});

/**
 * Invalid fixtures that the schema refuses for another reason than the validators: they use proto
 * names, which the schema does not know, so it misses the fields the validators report.
 */
const OTHER_REASON: Readonly<Record<string, string>> = {
  'AgentCard/given-twice-in-map-values':
    'refused because client_credentials is unknown to the schema, leaving OAuthFlows without a member',
  'Message/proto-name-wrong-type': 'refused because messageId (written message_id) is missing',
  'SendMessageRequest/given-twice-at-several-depths':
    'refused for its part without content only; the fields given twice are unknown to the schema',
};

/** `message.parts[0]` (below the root `SendMessageRequest`) as the JSON pointer `/message/parts/0`. */
function pointerOf(field: string, root: string): string {
  if (field === root) return '';
  const keys = field.match(/[^.[\]"]+|\["[^"]*"\]/g) ?? [];
  return keys.map((key) => `/${key.startsWith('["') ? key.slice(2, -2) : key}`).join('');
}

const allErrors = new Ajv2020({
  strict: true,
  allowUnionTypes: true,
  validateFormats: false,
  allErrors: true,
});
allErrors.addSchema({ ...jsonSchemaBundle(), $id: BUNDLE_ID });

describe('invalid fixtures', () => {
  it.each(
    corpus.invalid
      .filter((f) => NOT_EXPRESSIBLE[`${f.type}/${f.name}`] === undefined)
      .map((f) => [`${f.type}/${f.name}`, f] as const),
  )('%s is refused at the fields the validators report', (label, fixture) => {
    const validate = allErrors.getSchema(`${BUNDLE_ID}#/$defs/${fixture.type}`);
    if (validate === undefined || validate(fixture.input)) throw new Error(`${label} is accepted`);
    const paths = new Set<string>();
    for (const error of validate.errors ?? []) {
      paths.add(error.instancePath);
      const missing = (error.params as { missingProperty?: unknown }).missingProperty;
      if (typeof missing === 'string') paths.add(`${error.instancePath}/${missing}`);
    }
    const root = fixture.root ?? fixture.type;
    const unexplained = fixture.violations.filter((field) => !paths.has(pointerOf(field, root)));
    expect(unexplained.length > 0, OTHER_REASON[label] ?? `${unexplained.join(', ')}`).toBe(
      OTHER_REASON[label] !== undefined,
    );
  });

  it.each(corpus.invalid.map((f) => [`${f.type}/${f.name}: ${f.rule}`, f] as const))(
    '%s',
    (_, { type, name, input }) => {
      const reason = NOT_EXPRESSIBLE[`${type}/${name}`];
      const validate = validatorOf(type);
      // A listed fixture must still be accepted, or the list would hide a schema that got better.
      expect(validate(input), reason ?? 'the schema accepts an invalid fixture').toBe(
        reason !== undefined,
      );
    },
  );

  it('that are listed above exist', () => {
    const names = new Set(corpus.invalid.map((f) => `${f.type}/${f.name}`));
    const listed = [...Object.keys(NOT_EXPRESSIBLE), ...Object.keys(OTHER_REASON)];
    expect(listed.filter((name) => !names.has(name))).toEqual([]);
  });
});

describe('one type', () => {
  it.each(SCHEMA_TYPE_NAMES)('%s is self-contained and agrees with the bundle', (type) => {
    const schema = jsonSchemaOf(type);
    const alone = newAjv().compile(schema);
    const bundled = validatorOf(type);
    const defs = Object.keys((schema.$defs as object | undefined) ?? {});
    for (const ref of JSON.stringify(schema).matchAll(/"#\/\$defs\/(\w+)"/g)) {
      expect(defs).toContain(ref[1]);
    }
    for (const fixture of corpus.valid.filter((f) => f.type === type)) {
      expect(alone(fixture.input)).toBe(bundled(fixture.input));
    }
    for (const fixture of corpus.invalid.filter((f) => f.type === type)) {
      expect(alone(fixture.input)).toBe(bundled(fixture.input));
    }
  });
});

describe('the patterns', () => {
  const base64Samples = [
    '',
    'A',
    'AA',
    'AAA',
    'AAAA',
    'AAAAA',
    'AA==',
    'AAA=',
    'AA=',
    'A===',
    '==',
    'AAAA==',
    'AAA==',
    'ab-_',
    'ab+/',
    'a b=',
    'SGVsbG8gd29ybGQ',
    'SGVsbG8gd29ybGQ=',
    'SGVsbG8=d29ybGQ=',
    'YQ',
    'YQ=',
    'YQ==',
  ];
  it.each(base64Samples)('base64 %j: the pattern agrees with the validators', (sample) => {
    expect(new RegExp(BASE64_PATTERN).test(sample)).toBe(isBase64(sample));
  });

  const timestampSamples = [
    '2025-10-28T10:30:00.000Z',
    '2025-10-28T10:30:00Z',
    '2025-10-28T10:30:60Z',
    '2025-10-28T10:30:00.123456789Z',
    '2025-10-28T10:30:00.1234567890Z',
    '2025-10-28T24:00:00Z',
    '2025-10-28T23:60:00Z',
    '2025-13-01T00:00:00Z',
    '2025-00-01T00:00:00Z',
    '2025-10-00T00:00:00Z',
    '2025-10-32T00:00:00Z',
    '2025-10-28T10:30:00+00:00',
    '2025-10-28t10:30:00z',
    '2025-10-28',
    '2025-10-28T10:30Z',
  ];
  it.each(timestampSamples)('timestamp %j: the pattern agrees with the validators', (sample) => {
    expect(new RegExp(TIMESTAMP_PATTERN).test(sample)).toBe(isUtcTimestamp(sample));
  });

  it('timestamps: a day beyond its month is what only the validators see', () => {
    for (const sample of ['2025-02-29T00:00:00Z', '2025-04-31T00:00:00Z']) {
      expect(new RegExp(TIMESTAMP_PATTERN).test(sample)).toBe(true);
      expect(isUtcTimestamp(sample)).toBe(false);
    }
  });
});
