import { describe, it, expect } from 'vitest';
import { ConfigurationError } from '../../src/protocol/local-errors.js';
import {
  SseDecoder,
  SseEventTooLargeError,
  decodeSseStream,
} from '../../src/protocol/sse-decoder.js';
import type { SseEvent } from '../../src/protocol/sse-decoder.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Feeds `chunks` to one decoder, then ends it; returns the events and comments seen. */
function decode(chunks: readonly (Uint8Array | string)[]): {
  events: SseEvent[];
  comments: string[];
} {
  const comments: string[] = [];
  const decoder = new SseDecoder({ onComment: (text) => comments.push(text) });
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  events.push(...decoder.end());
  return { events, comments };
}

const events = (...chunks: (Uint8Array | string)[]): SseEvent[] => decode(chunks).events;
const data = (...chunks: (Uint8Array | string)[]): string[] =>
  events(...chunks).map((event) => event.data);
const bytes = (...codes: number[]): Uint8Array => new Uint8Array(codes);
/** `text` as UTF-8, cut into chunks at the given byte offsets. */
const splitAt = (text: string, ...at: number[]): Uint8Array[] =>
  [0, ...at].map((start, i) => utf8(text).subarray(start, at[i]));

describe('SseDecoder lines and data', () => {
  it.each<[string, (Uint8Array | string)[], string[]]>([
    ['LF line ends', ['data: a\ndata: b\n\n'], ['a\nb']],
    ['CRLF line ends', ['data: a\r\ndata: b\r\n\r\n'], ['a\nb']],
    ['CR line ends', ['data: a\rdata: b\r\r'], ['a\nb']],
    ['mixed line ends', ['data: a\r\ndata: b\rdata: c\n\r'], ['a\nb\nc']],
    ['LF CR as two line ends', ['data: a\n\rdata: b\n\n'], ['a', 'b']],
    ['CR ending a chunk, LF starting the next', ['data: a\r', '\ndata: b\r\n\r\n'], ['a\nb']],
    ['CR|LF across byte chunks', splitAt('data: a\r\ndata: b\r\n\r\n', 8, 17, 19), ['a\nb']],
    ['CR|LF with empty chunks between', ['data: a\r', '', bytes(), '\ndata: b\n\n'], ['a\nb']],
    ['CR|LF then LF as a blank line', ['data: a\r', '\n\ndata: b\n\n'], ['a', 'b']],
    ['CR ending a chunk, no LF next', ['data: a\r', 'data: b\r\r'], ['a\nb']],
    ['a line split over many chunks', ['da', 'ta', ':', ' ', 'he', 'llo', '\n', '\n'], ['hello']],
    [
      'one space after the colon',
      ['data:x\n\ndata: x\n\ndata:  x\n\ndata:\tx\n\n'],
      ['x', 'x', ' x', '\tx'],
    ],
    ['at the first colon only', ['data: a: b:c\n\n'], ['a: b:c']],
    ['a line without a colon', ['data\n\ndata\ndata\n\n'], ['', '\n']],
    ['a single empty data line', ['data:\n\ndata: \n\n'], ['', '']],
    [
      'empty data lines inside and at the end',
      ['data: a\ndata:\ndata: b\ndata:\n\n'],
      ['a\n\nb\n'],
    ],
    ['characters split across chunks', splitAt('data: €😀\n\n', 7, 8, 10, 12), ['€😀']],
    [
      'malformed UTF-8 as U+FFFD',
      [bytes(0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a)],
      ['\uFFFD'],
    ],
    [
      'a string after a cut character',
      [bytes(0x64, 0x61, 0x74, 0x61, 0x3a, 0xe2), '\n\n'],
      ['\uFFFD'],
    ],
    ['a leading BOM in bytes', [utf8('\uFEFFdata: x\n\n')], ['x']],
    ['a leading BOM in text', ['\uFEFFdata: x\n\n'], ['x']],
    [
      'a leading BOM split across chunks',
      [bytes(0xef), bytes(0xbb), bytes(0xbf), 'data: x\n\n'],
      ['x'],
    ],
    ['a leading BOM after empty chunks', ['', '\uFEFF', 'data: x\n\n'], ['x']],
    ['a second BOM, as part of a field name', ['\uFEFF\uFEFFdata: x\ndata: y\n\n'], ['y']],
    [
      'a BOM starting a later chunk, as part of a field name',
      ['data: a\n', '\uFEFFdata: b\n\n'],
      ['a'],
    ],
    ['a BOM inside data, kept', ['data: \uFEFFa\n\n'], ['\uFEFFa']],
  ])('decodes %s', (_case, chunks, expected) => {
    expect(data(...chunks)).toEqual(expected);
  });

  it('dispatches only on a blank line', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('data: a\ndata: b\n')).toEqual([]);
    expect(decoder.push('\n')).toEqual([{ data: 'a\nb', lastEventId: '' }]);
  });
});

describe('SseDecoder fields', () => {
  const x = { data: 'x', lastEventId: '' };
  it.each<[string, string, SseEvent[]]>([
    ['an id line without a colon as an empty id', 'id\ndata: x\n\n', [{ ...x, id: '' }]],
    [
      'an event type, reset after dispatch',
      'event: e\ndata: x\n\ndata: x\n\n',
      [{ ...x, event: 'e' }, x],
    ],
    ['the last event type of a block', 'event: a\nevent: b\ndata: x\n\n', [{ ...x, event: 'b' }]],
    ['an empty event type as none', 'event: a\nevent:\ndata: x\n\n', [x]],
    ['a block without data as nothing, dropping its type', 'event: a\n\ndata: x\n\n', [x]],
    [
      'unknown fields and field names in another case as nothing',
      'foo: bar\nData: no\nID: 9\nEvent: e\ndata: x\n\n',
      [x],
    ],
    [
      'an id on its block only, and lastEventId across blocks',
      'id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n',
      [
        { data: 'a', id: '1', lastEventId: '1' },
        { data: 'b', lastEventId: '1' },
        { data: 'c', id: '2', lastEventId: '2' },
      ],
    ],
    ['an empty id, resetting lastEventId', 'id: 1\n\nid:\ndata: x\n\n', [{ ...x, id: '' }]],
    [
      'an id containing NUL as nothing',
      'id: 1\n\nid: a\0b\ndata: x\n\n',
      [{ ...x, lastEventId: '1' }],
    ],
    [
      'an id keeping spaces beyond the first',
      'id:  5 \ndata: x\n\n',
      [{ ...x, id: ' 5 ', lastEventId: ' 5 ' }],
    ],
    [
      'retry on its block only',
      'retry: 3000\ndata: x\n\nretry:0\ndata: x\n\ndata: x\n\n',
      [{ ...x, retry: 3000 }, { ...x, retry: 0 }, x],
    ],
  ])('decodes %s', (_case, stream, expected) => {
    expect(events(stream)).toEqual(expected);
  });

  it('updates lastEventId from a block without data, which is not dispatched', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('id: 7\n\n')).toEqual([]);
    expect(decoder.lastEventId).toBe('7');
    expect(decoder.push('data: x\n\n')).toEqual([{ data: 'x', lastEventId: '7' }]);
  });

  it('commits lastEventId only at the blank line', () => {
    const decoder = new SseDecoder();
    decoder.push('id: 3\ndata: x\n');
    expect(decoder.lastEventId).toBe('');
    decoder.push('\n');
    expect(decoder.lastEventId).toBe('3');
  });

  it('keeps the last valid retry', () => {
    const decoder = new SseDecoder();
    expect(decoder.retry).toBeUndefined();
    decoder.push('retry: 3000\ndata: x\n\nretry:0\n');
    expect(decoder.retry).toBe(0);
  });

  it.each(['30s', '-1', '1.5', '+5', '', '  100', '1e3', '١٢', '99999999999999999999'])(
    'ignores the retry %j',
    (value) => {
      const decoder = new SseDecoder();
      decoder.push('retry: 10\n\n');
      expect(decoder.push(`retry: ${value}\ndata: x\n\n`)).toEqual([
        { data: 'x', lastEventId: '' },
      ]);
      expect(decoder.retry).toBe(10);
    },
  );

  it('applies retry at once, even in a block that is never dispatched', () => {
    const decoder = new SseDecoder();
    decoder.push('retry: 500\n');
    expect(decoder.retry).toBe(500);
    expect(decoder.push('\ndata: x\n\n')).toEqual([{ data: 'x', lastEventId: '' }]);
  });

  it('passes comments without the colon and one space to onComment', () => {
    const { events: seen, comments } = decode([
      ': hello\n:world\n:  two\n:\n: a: b\ndata: x\n: inside\ndata: y\n\n',
    ]);
    expect(comments).toEqual(['hello', 'world', ' two', '', 'a: b', 'inside']);
    expect(seen).toEqual([{ data: 'x\ny', lastEventId: '' }]);
  });

  it('ignores comments without onComment', () => {
    const decoded = new SseDecoder().push(': ping\n\ndata: x\n\n');
    expect(decoded).toEqual([{ data: 'x', lastEventId: '' }]);
  });
});

describe('SseDecoder end', () => {
  it('does not dispatch an event missing its blank line', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('data: a\n\ndata: b\n')).toEqual([{ data: 'a', lastEventId: '' }]);
    expect(decoder.end()).toEqual([]);
    expect(events('data: x')).toEqual([]);
    expect(events('data: x\r')).toEqual([]);
  });

  it('does not pass an unterminated comment line', () => {
    expect(decode([': done\n: tail']).comments).toEqual(['done']);
  });

  it('flushes the UTF-8 decoder and drops the unfinished event, ready for a new stream', () => {
    const decoder = new SseDecoder();
    decoder.push(utf8('id: 1\n\nretry: 9\nid: 2\ndata: a'));
    decoder.push(bytes(0xe2, 0x82));
    expect(decoder.end()).toEqual([]);
    expect(decoder.push(utf8('\uFEFFdata: b\n\n'))).toEqual([{ data: 'b', lastEventId: '1' }]);
    expect(decoder.retry).toBe(9);
  });
});

describe('SseDecoder limit', () => {
  it('accepts a line and data of exactly the limit', () => {
    const decoder = new SseDecoder({ maxEventLength: 12 });
    expect(decoder.push('data: 123456\n')).toEqual([]);
    expect(decoder.push('data:\n\n')).toEqual([{ data: '123456\n', lastEventId: '' }]);
  });

  it('throws on a line past the limit, whether it arrives whole or in pieces', () => {
    expect(() => new SseDecoder({ maxEventLength: 12 }).push('data: 1234567\n')).toThrow(
      SseEventTooLargeError,
    );
    const decoder = new SseDecoder({ maxEventLength: 12 });
    decoder.push('data: ');
    decoder.push('123456');
    expect(() => decoder.push('7')).toThrow(SseEventTooLargeError);
  });

  it('throws when the data lines of one event add up past the limit', () => {
    const decoder = new SseDecoder({ maxEventLength: 12 });
    decoder.push('data: 12345\ndata: 12345\n');
    expect(() => decoder.push('data: 12\n')).toThrow(new SseEventTooLargeError(12).message);
  });

  it('counts each event apart, and comments never add up', () => {
    const decoder = new SseDecoder({ maxEventLength: 12 });
    for (let i = 0; i < 10; i++) {
      expect(decoder.push(': heartbeat\ndata: 123456\n\n')).toHaveLength(1);
    }
  });

  it('counts a line that came in pieces once, and starts the next line from zero', () => {
    const decoder = new SseDecoder({ maxEventLength: 12 });
    decoder.push('data: 1234');
    expect(decoder.push('56\n\n')).toEqual([{ data: '123456', lastEventId: '' }]);
    expect(decoder.push('data: 123456\n\n')).toHaveLength(1);
    decoder.push('data: 1234');
    decoder.end();
    expect(decoder.push('data: 123456\n\n')).toHaveLength(1);
  });

  it('carries the events completed before the overlong line, and can start a new stream', () => {
    const decoder = new SseDecoder({ maxEventLength: 12 });
    let thrown: unknown;
    try {
      decoder.push('id: 1\ndata: a\n\ndata: 1234567890123\n');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SseEventTooLargeError);
    expect((thrown as SseEventTooLargeError).events).toEqual([
      { data: 'a', id: '1', lastEventId: '1' },
    ]);
    expect(decoder.push('data: b\n\n')).toEqual([{ data: 'b', lastEventId: '1' }]);
  });

  it('refuses a limit that is not a positive integer', () => {
    for (const maxEventLength of [0, -1, 1.5, Number.NaN]) {
      expect(() => new SseDecoder({ maxEventLength })).toThrow(ConfigurationError);
    }
  });
});

/** Several events exercising every rule at once, and what they decode to. */
const corpus =
  '\uFEFF: stream start\r\n' +
  'retry: 1500\r\n' +
  'id: 1\r\nevent: status\r\ndata: {"state":"working"}\r\n\r\n' +
  'data: héllo\ndata:  wörld 😀\n\n' +
  ':heartbeat\r' +
  'id: 2\revent: artifact\rdata: 𝄞 ünïcödé — 日本\r\r' +
  'id: ignored\0\ndata\ndata: 👩‍👩‍👧\r\n\n' +
  'id:\nunknown: x\ndata: last\r\n\r\n' +
  'data: never dispatched\n';

const corpusEvents: SseEvent[] = [
  { data: '{"state":"working"}', event: 'status', id: '1', lastEventId: '1', retry: 1500 },
  { data: 'héllo\n wörld 😀', lastEventId: '1' },
  { data: '𝄞 ünïcödé — 日本', event: 'artifact', id: '2', lastEventId: '2' },
  { data: '\n👩‍👩‍👧', lastEventId: '2' },
  { data: 'last', id: '', lastEventId: '' },
];
const want = { events: corpusEvents, comments: ['stream start', 'heartbeat'] };

describe('SseDecoder chunking', () => {
  const corpusBytes = utf8(corpus);

  it('decodes the corpus fed as one chunk', () => {
    expect(decode([corpusBytes])).toEqual(want);
    expect(decode([corpus])).toEqual(want);
  });

  it('decodes the corpus split into two byte chunks at every offset', () => {
    for (let at = 0; at <= corpusBytes.length; at++) {
      const chunks = [corpusBytes.subarray(0, at), corpusBytes.subarray(at)];
      expect(decode(chunks), `split at byte ${at}`).toEqual(want);
    }
  });

  it('decodes the corpus split into two string chunks at every offset', () => {
    for (let at = 0; at <= corpus.length; at++) {
      const chunks = [corpus.slice(0, at), corpus.slice(at)];
      expect(decode(chunks), `split at UTF-16 unit ${at}`).toEqual(want);
    }
  });

  it('decodes the corpus fed one byte at a time', () => {
    expect(decode(Array.from(corpusBytes, (byte) => bytes(byte)))).toEqual(want);
  });

  it('stays linear when a long line arrives in many small chunks', { timeout: 5_000 }, () => {
    const line = 'x'.repeat(4 * 1024 * 1024);
    const decoder = new SseDecoder();
    const text = `data: ${line}\n\n`;
    const result: SseEvent[] = [];
    for (let at = 0; at < text.length; at += 64) {
      result.push(...decoder.push(text.slice(at, at + 64)));
    }
    expect(result).toHaveLength(1);
    expect(result[0]?.data.length).toBe(line.length);
  });

  it('decodes many events in one chunk', () => {
    let stream = '';
    for (let i = 0; i < 10_000; i++) stream += `id: ${i}\ndata: {"n":${i}}\n\n`;
    const result = new SseDecoder().push(stream);
    expect(result).toHaveLength(10_000);
    expect(result[9_999]).toEqual({ data: '{"n":9999}', id: '9999', lastEventId: '9999' });
  });
});

describe('decodeSseStream', () => {
  /** Lets chunks arrive on later turns of the event loop, as network reads do. */
  const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

  it('decodes events from an async generator of mixed chunks', async () => {
    const bytes = utf8('\nid: 1\ndata: 😀😀\n\n');
    async function* source(): AsyncGenerator<Uint8Array | string> {
      await tick();
      yield 'data: a\r';
      yield bytes.slice(0, 15); // ends inside the first emoji
      yield bytes.slice(15);
      yield 'data: unfinished';
    }
    const seen: SseEvent[] = [];
    for await (const event of decodeSseStream(source())) seen.push(event);
    expect(seen).toEqual([{ data: 'a\n😀😀', id: '1', lastEventId: '1' }]);
  });

  it('passes comments to onComment', async () => {
    async function* source(): AsyncGenerator<string> {
      await tick();
      yield ': ping\n\n';
    }
    const comments: string[] = [];
    const seen: SseEvent[] = [];
    const options = { onComment: (text: string) => comments.push(text) };
    for await (const event of decodeSseStream(source(), options)) seen.push(event);
    expect(seen).toEqual([]);
    expect(comments).toEqual(['ping']);
  });

  it('returns the source when the consumer breaks out early', async () => {
    let pulled = 0;
    let closed = false;
    async function* source(): AsyncGenerator<string> {
      try {
        for (;;) {
          await tick();
          pulled++;
          yield `data: ${pulled}\n\ndata: second of ${pulled}\n\n`;
        }
      } finally {
        closed = true;
      }
    }
    const seen: string[] = [];
    for await (const event of decodeSseStream(source())) {
      seen.push(event.data);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(['1', 'second of 1', '2']);
    expect(pulled).toBe(2);
    expect(closed).toBe(true);
  });

  it('cancels a ReadableStream source when the consumer breaks out early', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(utf8('data: tick\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of decodeSseStream(body)) {
      expect(event.data).toBe('tick');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
