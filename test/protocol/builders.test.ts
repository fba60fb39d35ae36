import { Buffer } from 'node:buffer';
import { describe, it, expect } from 'vitest';
import { decodeBase64, encodeBase64 } from '../../src/protocol/base64.js';
import {
  agentMessage,
  dataPart,
  fileBytesPart,
  fileUrlPart,
  newArtifact,
  nowTimestamp,
  textPart,
  userMessage,
} from '../../src/protocol/builders.js';
import type { Part } from '../../src/protocol/generated/types.js';
import { parseMessage } from '../../src/protocol/validation.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const META = { source: 'test', nested: { n: 1, ok: true, list: [null, 'x'] } };

/** The reference encoding, from Node's Buffer. */
const reference = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

function bytesOf(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}

/** Byte equality without element-by-element deep equality, which is slow on large arrays. */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  expect(Buffer.from(actual).equals(Buffer.from(expected))).toBe(true);
}

function expectValid(messageName: 'Part' | 'Message' | 'Artifact', value: unknown): void {
  const result = parseMessage(messageName, value);
  expect(result.success ? [] : result.violations).toEqual([]);
  if (result.success) expect(result.value).toEqual(value);
}

describe('textPart', () => {
  it('builds a text part with nothing else set', () => {
    expect(textPart('hello')).toStrictEqual({ text: 'hello' });
  });

  it('copies the options that are given', () => {
    expect(
      textPart('hello', { mediaType: 'text/markdown', filename: 'a.md', metadata: META }),
    ).toStrictEqual({
      text: 'hello',
      mediaType: 'text/markdown',
      filename: 'a.md',
      metadata: META,
    });
    expect(textPart('hello', { filename: 'a.txt' })).toStrictEqual({
      text: 'hello',
      filename: 'a.txt',
    });
  });

  it('keeps an empty text', () => {
    expect(textPart('')).toStrictEqual({ text: '' });
  });
});

describe('dataPart', () => {
  it('defaults the media type to application/json', () => {
    expect(dataPart({ a: 1 })).toStrictEqual({ data: { a: 1 }, mediaType: 'application/json' });
  });

  it('lets the media type be overridden', () => {
    expect(dataPart([1, 2], { mediaType: 'application/vnd.example+json' })).toStrictEqual({
      data: [1, 2],
      mediaType: 'application/vnd.example+json',
    });
  });

  it('keeps the default media type when other options are given', () => {
    expect(dataPart('x', { filename: 'x.json', metadata: META })).toStrictEqual({
      data: 'x',
      mediaType: 'application/json',
      filename: 'x.json',
      metadata: META,
    });
  });

  it.each([null, 0, false, '', [], {}])('accepts the JSON value %j', (data) => {
    const part = dataPart(data);
    expect(part.data).toEqual(data);
    expect('data' in part).toBe(true);
    expectValid('Part', part);
  });
});

describe('fileUrlPart', () => {
  it('builds a URL part without a media type', () => {
    expect(fileUrlPart('https://example.com/a.png')).toStrictEqual({
      url: 'https://example.com/a.png',
    });
  });

  it('takes a string second argument as the media type', () => {
    expect(fileUrlPart('https://example.com/a.png', 'image/png')).toStrictEqual({
      url: 'https://example.com/a.png',
      mediaType: 'image/png',
    });
  });

  it('takes options', () => {
    expect(
      fileUrlPart('https://example.com/a.pdf', {
        mediaType: 'application/pdf',
        filename: 'a.pdf',
        metadata: META,
      }),
    ).toStrictEqual({
      url: 'https://example.com/a.pdf',
      mediaType: 'application/pdf',
      filename: 'a.pdf',
      metadata: META,
    });
  });
});

describe('fileBytesPart', () => {
  it('base64-encodes bytes', () => {
    expect(fileBytesPart(new TextEncoder().encode('hello'))).toStrictEqual({ raw: 'aGVsbG8=' });
  });

  it('encodes every byte value 0..255', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const part = fileBytesPart(bytes, 'application/octet-stream');
    expect(part).toStrictEqual({ raw: reference(bytes), mediaType: 'application/octet-stream' });
    expect(decodeBase64(part.raw!)).toEqual(bytes);
  });

  it.each([64 * 1024 + 1, 3 * 0x8000 + 2])(
    'encodes an array of %i bytes (larger than one encoding chunk)',
    (length) => {
      const bytes = bytesOf(length);
      const part = fileBytesPart(bytes);
      expect(part.raw).toBe(reference(bytes));
      expectSameBytes(decodeBase64(part.raw!), bytes);
    },
  );

  it('encodes an empty array', () => {
    expect(fileBytesPart(new Uint8Array(0))).toStrictEqual({ raw: '' });
  });

  it('encodes only the viewed window of a subarray', () => {
    const whole = Uint8Array.from([1, 2, 3, 4, 5, 6]);
    expect(fileBytesPart(whole.subarray(2, 5)).raw).toBe(reference(Uint8Array.from([3, 4, 5])));
  });

  it('takes a string as already base64-encoded', () => {
    expect(fileBytesPart('aGVsbG8=', { mediaType: 'text/plain', filename: 'h.txt' })).toStrictEqual(
      { raw: 'aGVsbG8=', mediaType: 'text/plain', filename: 'h.txt' },
    );
  });
});

describe.each([
  ['userMessage', userMessage, 'ROLE_USER'],
  ['agentMessage', agentMessage, 'ROLE_AGENT'],
] as const)('%s', (_name, build, role) => {
  it(`sets the role ${role} and a fresh UUID messageId on each call`, () => {
    const a = build('hi');
    const b = build('hi');
    expect(a.role).toBe(role);
    expect(a.messageId).toMatch(UUID);
    expect(b.messageId).toMatch(UUID);
    expect(a.messageId).not.toBe(b.messageId);
  });

  it('makes a text part from a string', () => {
    expect(build('hi').parts).toStrictEqual([{ text: 'hi' }]);
  });

  it('wraps a single part', () => {
    const part = dataPart({ k: 'v' });
    expect(build(part).parts).toStrictEqual([part]);
  });

  it('takes an array of parts as is', () => {
    const parts: Part[] = [textPart('a'), fileUrlPart('https://example.com/x', 'image/png')];
    expect(build(parts).parts).toStrictEqual(parts);
  });

  it('has only messageId, role and parts when no options are given', () => {
    expect(Object.keys(build('hi')).sort()).toEqual(['messageId', 'parts', 'role']);
    expect(Object.keys(build('hi', {})).sort()).toEqual(['messageId', 'parts', 'role']);
  });

  it('copies every option that is given', () => {
    const message = build('hi', {
      messageId: 'm-1',
      contextId: 'ctx-1',
      taskId: 'task-1',
      metadata: META,
      extensions: ['https://example.com/ext/v1'],
      referenceTaskIds: ['task-0'],
    });
    expect(message).toStrictEqual({
      messageId: 'm-1',
      role,
      parts: [{ text: 'hi' }],
      contextId: 'ctx-1',
      taskId: 'task-1',
      metadata: META,
      extensions: ['https://example.com/ext/v1'],
      referenceTaskIds: ['task-0'],
    });
  });

  it('sets only the options that are given', () => {
    const message = build('hi', { taskId: 'task-1' });
    expect(Object.keys(message).sort()).toEqual(['messageId', 'parts', 'role', 'taskId']);
  });

  it('builds valid Message objects', () => {
    expectValid('Message', build('hi'));
    expectValid(
      'Message',
      build([textPart('a'), dataPart(null), fileBytesPart(bytesOf(10), 'image/png')], {
        contextId: 'ctx',
        taskId: 't',
        metadata: META,
        extensions: ['urn:x'],
        referenceTaskIds: ['t0'],
      }),
    );
  });
});

describe('newArtifact', () => {
  it('sets a fresh UUID artifactId and the parts', () => {
    const a = newArtifact('result');
    const b = newArtifact('result');
    expect(a).toStrictEqual({ artifactId: a.artifactId, parts: [{ text: 'result' }] });
    expect(a.artifactId).toMatch(UUID);
    expect(a.artifactId).not.toBe(b.artifactId);
  });

  it('copies every option that is given, and only those', () => {
    expect(
      newArtifact([dataPart({ x: 1 })], {
        artifactId: 'art-1',
        name: 'report',
        description: 'The report',
        metadata: META,
        extensions: ['urn:x'],
      }),
    ).toStrictEqual({
      artifactId: 'art-1',
      parts: [{ data: { x: 1 }, mediaType: 'application/json' }],
      name: 'report',
      description: 'The report',
      metadata: META,
      extensions: ['urn:x'],
    });
    expect(Object.keys(newArtifact('x', { name: 'n' })).sort()).toEqual([
      'artifactId',
      'name',
      'parts',
    ]);
  });

  it('builds valid Artifact objects', () => {
    expectValid('Artifact', newArtifact('x'));
    expectValid('Artifact', newArtifact(fileUrlPart('https://e.com/f'), { name: 'f' }));
  });
});

describe('nowTimestamp', () => {
  it('is the current instant as ISO-8601 UTC with milliseconds', () => {
    const before = Date.now();
    const stamp = nowTimestamp();
    const after = Date.now();
    expect(stamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const at = Date.parse(stamp);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
  });

  it('is accepted as a protocol timestamp', () => {
    const result = parseMessage('TaskStatus', {
      state: 'TASK_STATE_WORKING',
      timestamp: nowTimestamp(),
    });
    expect(result.success).toBe(true);
  });
});

describe('every built part is a valid Part', () => {
  it.each([
    ['textPart', textPart('x', { metadata: META })],
    ['dataPart', dataPart({ a: [1, 2] })],
    ['fileUrlPart', fileUrlPart('https://example.com/f', { filename: 'f', mediaType: 'a/b' })],
    ['fileBytesPart(bytes)', fileBytesPart(bytesOf(1000), 'application/octet-stream')],
    ['fileBytesPart(string)', fileBytesPart('aGk=')],
  ])('%s', (_label, part) => {
    expectValid('Part', part);
  });
});

describe('encodeBase64 / decodeBase64', () => {
  it.each([
    ['empty', new Uint8Array(0), ''],
    ['one byte', Uint8Array.from([0xff]), '/w=='],
    ['two bytes', Uint8Array.from([0xfb, 0xff]), '+/8='],
    ['three bytes', Uint8Array.from([0, 1, 2]), 'AAEC'],
  ])('encodes %s as standard padded base64', (_label, bytes, text) => {
    expect(encodeBase64(bytes)).toBe(text);
    expect(decodeBase64(text)).toEqual(bytes);
  });

  it.each([0, 1, 2, 3, 255, 256, 0x8000, 0x8001, 100_000])('round-trips %i bytes', (length) => {
    const bytes = bytesOf(length);
    expect(encodeBase64(bytes)).toBe(reference(bytes));
    expectSameBytes(decodeBase64(encodeBase64(bytes)), bytes);
  });

  it.each([
    ['URL-safe, unpadded', '-_8', [0xfb, 0xff]],
    ['URL-safe, padded', '-_8=', [0xfb, 0xff]],
    ['standard, unpadded', '/w', [0xff]],
    ['URL-safe, one byte unpadded', '_w', [0xff]],
  ])('decodes %s input', (_label, text, bytes) => {
    expect(decodeBase64(text)).toEqual(Uint8Array.from(bytes));
  });

  it('decodes URL-safe unpadded text of every byte value', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);
    const urlSafe = Buffer.from(bytes).toString('base64url');
    expect(urlSafe).not.toContain('=');
    expect(decodeBase64(urlSafe)).toEqual(bytes);
  });

  it.each(['!!!!', 'a', 'abcde'])('throws on invalid input %j', (text) => {
    expect(() => decodeBase64(text)).toThrow();
  });
});
