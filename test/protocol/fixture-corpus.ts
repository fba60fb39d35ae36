/**
 * Loads the fixture corpus (test/fixtures/v1.0, see its README) and the JSON examples of the
 * vendored spec. Fixtures are discovered with readdirSync, so a new case is a new file and never
 * a code change.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FieldDescriptor, MessageDescriptor } from '../../src/protocol/descriptor.js';
import { messageDescriptors } from '../../src/protocol/generated/descriptors.js';
import type { MessageTypes } from '../../src/protocol/generated/types.js';

export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/v1.0/', import.meta.url));
const EXTRACTOR = fileURLToPath(
  new URL('../../scripts/extract-spec-examples.mjs', import.meta.url),
);

export type MessageName = keyof MessageTypes;

/** A plain JSON instance of a proto message. */
export interface ValidFixture {
  readonly type: MessageName;
  readonly name: string;
  readonly input: unknown;
  /** The spec section of a `spec-<section>-<what>.json` fixture. */
  readonly section?: string;
}

/** `{ rule, input, violations, root? }`: `violations` is exactly what the parse must report. */
export interface InvalidFixture extends ValidFixture {
  readonly rule: string;
  readonly violations: readonly string[];
  readonly root?: string;
}

export interface Corpus {
  readonly valid: readonly ValidFixture[];
  readonly invalid: readonly InvalidFixture[];
  /** Spec examples that are not proto messages (`_non-proto/`); `type` is unused there. */
  readonly nonProto: readonly Omit<ValidFixture, 'type'>[];
  readonly nonProtoReadme: string;
  /** Directories that are not the name of a proto message. */
  readonly strayDirectories: readonly string[];
}

/** One JSON example of the spec, as scripts/extract-spec-examples.mjs reports it. */
export interface SpecExample {
  readonly id: string;
  readonly section: string;
  readonly line: number;
  readonly kind: 'json' | 'http-request' | 'http-response' | 'sse';
  readonly text: string;
  readonly json?: unknown;
  readonly error?: string;
  readonly lenient?: unknown;
  readonly jsonrpc?: {
    readonly member: 'params' | 'result' | 'error' | null;
    readonly method?: string;
  };
}

export interface SpecExtractor {
  extractSpecExamples(markdown: string): SpecExample[];
  readSpecExamples(path?: string): SpecExample[];
}

/** The extractor script, typed (it is plain JavaScript so that it runs without a build). */
export async function loadExtractor(): Promise<SpecExtractor> {
  return (await import(EXTRACTOR)) as SpecExtractor;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isMessageName(name: string): name is MessageName {
  return Object.hasOwn(messageDescriptors, name);
}

function descriptorOf(name: string): MessageDescriptor {
  const descriptor = (messageDescriptors as Record<string, MessageDescriptor | undefined>)[name];
  if (descriptor === undefined) throw new Error(`Unknown proto message ${name}`);
  return descriptor;
}

/** `spec-6.1-request.json` → `6.1`; `spec-A.2.1-text-part.json` → `A.2.1`. */
export function specSection(fileName: string): string | undefined {
  return /^spec-((?:\d+|[A-Z])(?:\.\d+)*)-/.exec(fileName)?.[1];
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
const jsonFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort();
const withSection = (name: string): { section?: string } => {
  const section = specSection(name);
  return section === undefined ? {} : { section };
};

const INVALID_KEYS = new Set(['rule', 'input', 'violations', 'root']);

function readInvalid(path: string, type: MessageName, name: string): InvalidFixture {
  const raw = readJson(path);
  const wellFormed =
    isRecord(raw) &&
    Object.keys(raw).every((key) => INVALID_KEYS.has(key)) &&
    typeof raw.rule === 'string' &&
    raw.rule.trim() !== '' &&
    'input' in raw &&
    Array.isArray(raw.violations) &&
    raw.violations.length > 0 &&
    raw.violations.every((field) => typeof field === 'string') &&
    (raw.root === undefined || typeof raw.root === 'string');
  if (!wellFormed) {
    throw new Error(
      `${path}: an invalid fixture is {"rule": "<one sentence>", "input": <JSON>, "violations": ["<field path>", ...]} with an optional "root"`,
    );
  }
  return {
    type,
    name,
    input: raw.input,
    rule: raw.rule as string,
    violations: raw.violations as string[],
    ...(typeof raw.root === 'string' ? { root: raw.root } : {}),
    ...withSection(name),
  };
}

/** Reads every fixture of the corpus. */
export function loadCorpus(dir = FIXTURES_DIR): Corpus {
  const valid: ValidFixture[] = [];
  const invalid: InvalidFixture[] = [];
  const strayDirectories: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === '_non-proto') continue;
    const type = entry.name;
    if (!isMessageName(type)) {
      strayDirectories.push(type);
      continue;
    }
    const typeDir = join(dir, type);
    for (const file of jsonFiles(typeDir)) {
      const name = file.slice(0, -'.json'.length);
      valid.push({ type, name, input: readJson(join(typeDir, file)), ...withSection(name) });
    }
    const invalidDir = join(typeDir, 'invalid');
    if (!readdirSync(typeDir).includes('invalid')) continue;
    for (const file of jsonFiles(invalidDir)) {
      invalid.push(readInvalid(join(invalidDir, file), type, file.slice(0, -'.json'.length)));
    }
  }
  const nonProtoDir = join(dir, '_non-proto');
  const nonProto = jsonFiles(nonProtoDir).map((file) => {
    const name = file.slice(0, -'.json'.length);
    return { name, input: readJson(join(nonProtoDir, file)), ...withSection(name) };
  });
  const nonProtoReadme = readFileSync(join(nonProtoDir, 'README.md'), 'utf8');
  return { valid, invalid, nonProto, nonProtoReadme, strayDirectories };
}

/** What a fixture says about the wire model, read through the descriptors. */
export interface FixtureWalk {
  /** The value `parseMessage` must return: unknown fields and `null` (= unset) removed. */
  readonly expected: unknown;
  /** Paths of the input fields that parsing drops. */
  readonly dropped: readonly string[];
  /** Paths of the input fields written under their proto name (`context_id`). */
  readonly renamed: readonly string[];
  /** `Message.field` for every field set, `Enum.VALUE` for every enum value used. */
  readonly seen: ReadonlySet<string>;
}

/**
 * Walks a valid input along the descriptors of `type`. The ProtoJSON rules it applies are the
 * three the parse is allowed to change a valid input by: a field written under its proto name
 * comes out under its JSON name, unknown fields are ignored, and `null` means unset except on
 * `google.protobuf.Value` (so `Part.data: null` stays).
 */
export function walkFixture(type: MessageName, input: unknown): FixtureWalk {
  const dropped: string[] = [];
  const renamed: string[] = [];
  const seen = new Set<string>();
  const at = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

  const message = (name: string, value: unknown, path: string): unknown => {
    if (!isRecord(value)) return value;
    const descriptor = descriptorOf(name);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const field = descriptor.fields.find((f) => f.name === key || f.protoName === key);
      if (field === undefined || (item === null && field.type !== 'value')) {
        dropped.push(at(path, key));
        continue;
      }
      seen.add(`${name}.${field.name}`);
      if (key !== field.name) renamed.push(at(path, key));
      out[field.name] = member(field, item, at(path, key));
    }
    return out;
  };
  const single = (field: FieldDescriptor, item: unknown, path: string): unknown => {
    if (field.type === 'enum' && typeof item === 'string') seen.add(`${field.typeName}.${item}`);
    return field.type === 'message' ? message(field.typeName ?? '', item, path) : item;
  };
  const member = (field: FieldDescriptor, item: unknown, path: string): unknown => {
    if (field.repeated && Array.isArray(item)) {
      return item.map((element, i) => single(field, element, `${path}[${i}]`));
    }
    if (field.map && isRecord(item)) {
      return Object.fromEntries(
        Object.entries(item).map(([key, element]) => [key, single(field, element, at(path, key))]),
      );
    }
    return single(field, item, path);
  };

  return { expected: message(type, input, ''), dropped, renamed, seen };
}
