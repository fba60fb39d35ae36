/**
 * The fixture corpus of issue #2 (test/fixtures/v1.0): every valid fixture parses to itself minus
 * the fields ProtoJSON ignores, every invalid fixture reports exactly its listed field paths, and
 * every JSON example of the vendored spec is accounted for, so a spec update fails here until the
 * corpus follows it.
 */

import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  enumDescriptors,
  messageDescriptors,
  methodDescriptors,
} from '../../src/protocol/generated/descriptors.js';
import { parseMessage } from '../../src/protocol/validation.js';
import { loadCorpus, loadExtractor, walkFixture, type SpecExample } from './fixture-corpus.js';

const corpus = loadCorpus();
const extractor = await loadExtractor();
const examples = extractor.readSpecExamples();

/**
 * Spec examples with no JSON to keep: placeholders and elisions. Each quotes a snippet of its text
 * so that renumbered examples cannot shift an exclusion onto another one.
 */
const EXCLUDED: readonly { id: string; snippet: string; reason: string }[] = [
  {
    id: '4.3.3#1',
    snippet: '/* StreamResponse object - one of: */',
    reason: 'schematic: lists the four StreamResponse members with placeholder comments',
  },
  {
    id: '6.5#3',
    snippet: '/* ... additional tasks */',
    reason: 'tasks elided by a comment; its other fields repeat 6.5#1',
  },
  {
    id: '6.9#2',
    snippet: '/* Extended skills available',
    reason: 'AgentCard excerpt whose skills are elided by a comment',
  },
  {
    id: '9.2#1',
    snippet: '"params": { /* SendMessageRequest */ }',
    reason: 'JSON-RPC envelope with a placeholder for params',
  },
  {
    id: '9.3#1',
    snippet: '/* method-specific parameters */',
    reason: 'generic JSON-RPC envelope with a placeholder for params',
  },
  {
    id: '9.4.1#1',
    snippet: '/* SendMessageRequest object */',
    reason: 'JSON-RPC envelope with a placeholder for params',
  },
  {
    id: '9.4.1#2',
    snippet: '/* SendMessageResponse object',
    reason: 'placeholder for result; the block also lacks its closing brace',
  },
  {
    id: '9.4.2#1',
    snippet: '/* StreamResponse object */',
    reason: 'SSE event with a placeholder for result',
  },
  {
    id: '9.4.2#2',
    snippet: '/* StreamResponse object */',
    reason: 'SSE event with a placeholder for result',
  },
  {
    id: '11.7#1',
    snippet: '{ /* SendMessageRequest object */ }',
    reason: 'placeholder request body',
  },
  { id: '11.7#2', snippet: '{ /* StreamResponse object */ }', reason: 'placeholder SSE event' },
  { id: '11.7#3', snippet: '{ /* StreamResponse object */ }', reason: 'placeholder SSE event' },
];

const SPEC_INVALID_RULE = 'spec example violates the proto: ';

const sortedSet = (fields: readonly string[]): string[] => [...new Set(fields)].sort();
const label = (fixture: { type?: string; name: string }): string =>
  fixture.type === undefined ? fixture.name : `${fixture.type}/${fixture.name}`;

/** The parsed value of a valid fixture; throws when it does not parse. */
function parsedFixture(type: string, name: string): unknown {
  const fixture = corpus.valid.find((f) => f.type === type && f.name === name);
  if (fixture === undefined) throw new Error(`No fixture ${type}/${name}`);
  const result = parseMessage(fixture.type, fixture.input);
  if (!result.success) throw new Error(`${type}/${name}: ${JSON.stringify(result.violations)}`);
  return result.value;
}

describe('valid fixtures', () => {
  it.each(corpus.valid.map((f) => [label(f), f] as const))(
    '%s parses to its input minus unknown and null fields',
    (_, { type, input }) => {
      const result = parseMessage(type, input);
      expect(result.success ? [] : result.violations).toEqual([]);
      if (!result.success) return;
      const roundTripped: unknown = JSON.parse(JSON.stringify(result.value));
      expect(roundTripped).toStrictEqual(walkFixture(type, input).expected);
    },
  );

  it('prove that unknown fields are dropped and null means unset, but Part.data: null is kept', () => {
    const withDrops = corpus.valid.filter((f) => walkFixture(f.type, f.input).dropped.length > 0);
    expect(withDrops.map(label)).toEqual(
      expect.arrayContaining([
        'SendMessageRequest/unknown-fields-ignored',
        'SendMessageRequest/null-means-unset',
      ]),
    );
    const unknown = parsedFixture('SendMessageRequest', 'unknown-fields-ignored');
    expect(unknown).not.toHaveProperty('futureTopLevelField');
    expect(unknown).not.toHaveProperty(['message', 'parts', 0, 'kind']);
    expect(unknown).toHaveProperty(['message', 'metadata', 'kept-because-struct-content'], {
      anything: ['goes'],
    });
    const nulls = JSON.stringify(parsedFixture('SendMessageRequest', 'null-means-unset'));
    expect(JSON.parse(nulls)).toHaveProperty(['message', 'parts', 1], { data: null });
    expect(nulls.match(/null/g)).toHaveLength(1);
  });

  it('prove that proto field names are read at every depth and come out as JSON names', () => {
    const renamed = corpus.valid.flatMap((f) =>
      walkFixture(f.type, f.input).renamed.map((path) => `${label(f)}: ${path}`),
    );
    expect(renamed).toEqual(
      expect.arrayContaining([
        'GetTaskRequest/proto-field-names: history_length',
        'SendMessageRequest/proto-field-names: configuration.history_length',
        'SendMessageRequest/proto-field-names: message.parts[1].media_type',
        'SendMessageRequest/mixed-field-names: message.context_id',
        'AgentCard/proto-field-names: security_schemes.oauth.oauth2_security_scheme',
        'AgentCard/proto-field-names: skills[0].security_requirements',
        'StreamResponse/proto-field-names-status-update: status_update.task_id',
      ]),
    );
    const parsed = JSON.stringify(parsedFixture('AgentCard', 'proto-field-names'));
    expect(parsed).not.toMatch(/"[a-z0-9]+_[a-z0-9_]*":/);
  });

  it('cover every request and response type of the A2A service', () => {
    const types = new Set(corpus.valid.map((f) => f.type as string));
    const needed = Object.values(methodDescriptors)
      .flatMap((method) => [method.requestType, method.responseType])
      .filter((type) => type !== 'Empty');
    expect(needed.filter((type) => !types.has(type))).toEqual([]);
  });

  it('use every oneof member and every enum value but UNSPECIFIED', () => {
    const seen = new Set(corpus.valid.flatMap((f) => [...walkFixture(f.type, f.input).seen]));
    const members = Object.values(messageDescriptors).flatMap((message) =>
      message.oneofs.flatMap((oneof) => oneof.fields.map((field) => `${message.name}.${field}`)),
    );
    const values = Object.values(enumDescriptors).flatMap((e) =>
      e.values.slice(1).map((value) => `${e.name}.${value}`),
    );
    expect([...members, ...values].filter((name) => !seen.has(name))).toEqual([]);
  });

  it('live in directories named after proto messages', () => {
    expect(corpus.strayDirectories).toEqual([]);
  });
});

describe('invalid fixtures', () => {
  it.each(corpus.invalid.map((f) => [`${f.type}/invalid/${f.name}: ${f.rule}`, f] as const))(
    '%s',
    (_, { type, input, violations, root }) => {
      const result = parseMessage(type, input, root === undefined ? {} : { root });
      expect(result.success).toBe(false);
      if (result.success) return;
      expect(sortedSet(result.violations.map((v) => v.field))).toEqual(sortedSet(violations));
      expect(violations).toHaveLength(sortedSet(violations).length);
      for (const violation of result.violations) expect(violation.description).toMatch(/\S/);
    },
  );

  it('test both "none" and "two members" for every oneof of the proto', () => {
    const names = new Set(corpus.invalid.map(label));
    const missing = Object.values(messageDescriptors)
      .filter((message) => message.oneofs.length > 0)
      .flatMap((message) => [`${message.name}/oneof-none`, `${message.name}/oneof-two`])
      .filter((name) => !names.has(name));
    expect(missing).toEqual([]);
  });

  it('that come from the spec say so in their rule', () => {
    const spec = corpus.invalid.filter((f) => f.section !== undefined);
    expect(spec.filter((f) => !f.rule.startsWith(SPEC_INVALID_RULE)).map(label)).toEqual([]);
  });
});

/** The corpus entries an example can be: same section, deep-equal after envelope unwrapping. */
function accountFor(example: SpecExample): string[] {
  const parsed = example.error === undefined;
  const value = parsed ? example.json : example.lenient;
  if (value === undefined) return [];
  const candidates = [
    ...(parsed ? corpus.valid : []),
    ...corpus.invalid,
    ...(parsed ? corpus.nonProto : []),
  ];
  return candidates
    .filter((c) => c.section === example.section && isDeepStrictEqual(c.input, value))
    .map((c) => label(c));
}

describe('spec examples (drift guard)', () => {
  it.each(examples.map((e) => [`${e.id} at spec line ${e.line} (${e.kind})`, e] as const))(
    '%s is a fixture, a spec-invalid fixture, a non-proto file or excluded',
    (_, example) => {
      const excluded = EXCLUDED.find((entry) => entry.id === example.id);
      if (excluded) {
        expect(example.text).toContain(excluded.snippet);
        expect(accountFor(example)).toEqual([]);
        return;
      }
      expect(accountFor(example), example.error ?? example.text).not.toEqual([]);
    },
  );

  it('and every spec fixture or exclusion still matches an example', () => {
    const stale = [...corpus.valid, ...corpus.invalid, ...corpus.nonProto]
      .filter((f) => f.section !== undefined)
      .filter((f) => !examples.some((e) => accountFor(e).includes(label(f))))
      .map((f) => label(f));
    const ids = new Set(examples.map((e) => e.id));
    expect([...stale, ...EXCLUDED.filter((e) => !ids.has(e.id)).map((e) => e.id)]).toEqual([]);
  });

  it('non-proto files are spec examples, each listed with its reason in the README', () => {
    for (const { name, section } of corpus.nonProto) {
      expect(section, name).toBeDefined();
      expect(corpus.nonProtoReadme).toMatch(new RegExp(`\`${name}\\.json\`.*\\S`));
    }
  });
});

describe('extract-spec-examples', () => {
  const markdown = [
    '## 9. Binding',
    '### 9.9. Example',
    '```json',
    '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}}',
    '```',
    '```http',
    'HTTP/1.1 200 OK',
    'Content-Type: text/event-stream',
    '',
    'data: {"task": {"id": "t"}}',
    '',
    'data: {"message": /* elided */ {}}',
    '```',
    '## Appendix A. Legacy',
    '```http',
    'POST /message:send HTTP/1.1',
    '',
    '{',
    '  "a": 1,',
    '}',
    '```',
  ].join('\n');

  it('reads json blocks, HTTP bodies and SSE data lines, unwrapping JSON-RPC envelopes', () => {
    const found = extractor.extractSpecExamples(markdown);
    expect(found.map(({ id, section, line, kind }) => ({ id, section, line, kind }))).toEqual([
      { id: '9.9#1', section: '9.9', line: 4, kind: 'json' },
      { id: '9.9#2', section: '9.9', line: 10, kind: 'sse' },
      { id: '9.9#3', section: '9.9', line: 12, kind: 'sse' },
      { id: 'A#1', section: 'A', line: 18, kind: 'http-request' },
    ]);
    expect(found[0]).toMatchObject({ json: { id: 't' }, jsonrpc: { member: 'params' } });
    expect(found[1]).toMatchObject({ json: { task: { id: 't' } } });
  });

  it('reports examples that are not JSON with their line instead of throwing', () => {
    const [, , comment, trailing] = extractor.extractSpecExamples(markdown);
    expect(comment).toMatchObject({ lenient: { message: {} } });
    expect(comment?.error).toMatch(/spec line 12/);
    expect(trailing).toMatchObject({ lenient: { a: 1 } });
    expect(trailing?.error).toMatch(/spec line 20/);
    expect(trailing).not.toHaveProperty('json');
    expect(examples.filter((e) => e.error !== undefined).length).toBeGreaterThan(0);
  });
});
