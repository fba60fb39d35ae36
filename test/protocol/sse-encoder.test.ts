import { describe, it, expect } from 'vitest';
import { SseDecoder } from '../../src/protocol/sse-decoder.js';
import type { SseEvent } from '../../src/protocol/sse-decoder.js';
import { encodeSseComment, encodeSseEvent } from '../../src/protocol/sse-encoder.js';
import type { SseEventInit } from '../../src/protocol/sse-encoder.js';

describe('encodeSseEvent', () => {
  it('writes data alone as one data line and a blank line', () => {
    expect(encodeSseEvent({ data: '{"a":1}' })).toBe('data: {"a":1}\n\n');
  });

  it('writes id, event, retry, data in that order whatever the input order', () => {
    const frame = encodeSseEvent({ retry: 2500, data: 'x', event: 'status', id: '5' });
    expect(frame).toBe('id: 5\nevent: status\nretry: 2500\ndata: x\n\n');
  });

  it('omits fields that are not set', () => {
    expect(encodeSseEvent({ data: 'x', event: 'e' })).toBe('event: e\ndata: x\n\n');
    expect(encodeSseEvent({ data: 'x', retry: 0 })).toBe('retry: 0\ndata: x\n\n');
  });

  it('writes an empty id, which resets the client last event ID', () => {
    expect(encodeSseEvent({ data: 'x', id: '' })).toBe('id: \ndata: x\n\n');
  });

  it('writes empty data as one empty data line, so the event is still dispatched', () => {
    expect(encodeSseEvent({ data: '' })).toBe('data: \n\n');
  });

  it.each([
    ['LF', 'a\nb\nc'],
    ['CRLF', 'a\r\nb\r\nc'],
    ['CR', 'a\rb\rc'],
    ['mixed', 'a\r\nb\rc'],
  ])('splits %s line breaks into one data line per line', (_style, data) => {
    expect(encodeSseEvent({ data })).toBe('data: a\ndata: b\ndata: c\n\n');
  });

  it('keeps empty lines, including leading and trailing ones', () => {
    expect(encodeSseEvent({ data: '\na\n\nb\n' })).toBe(
      'data: \ndata: a\ndata: \ndata: b\ndata: \n\n',
    );
    expect(encodeSseEvent({ data: '\r\n\r\n' })).toBe('data: \ndata: \ndata: \n\n');
  });

  it('treats LF CR as two line breaks and CR LF as one', () => {
    expect(encodeSseEvent({ data: 'a\n\rb' })).toBe('data: a\ndata: \ndata: b\n\n');
    expect(encodeSseEvent({ data: 'a\r\nb' })).toBe('data: a\ndata: b\n\n');
  });

  it('keeps JSON on one data line, since JSON.stringify escapes line breaks', () => {
    const data = JSON.stringify({ text: 'line 1\nline 2\r\n' });
    expect(encodeSseEvent({ data })).toBe(`data: ${data}\n\n`);
  });

  it.each(['a\nb', 'a\rb', 'a\r\nb', '\n', 'nul\0'])('rejects the id %j', (id) => {
    expect(() => encodeSseEvent({ data: 'x', id })).toThrow(TypeError);
    expect(() => encodeSseEvent({ data: 'x', id })).toThrow(/SSE event id .* CR, LF or NUL/);
  });

  it.each(['a\nb', 'a\rb', '\r\n'])('rejects the event type %j', (event) => {
    expect(() => encodeSseEvent({ data: 'x', event })).toThrow(TypeError);
    expect(() => encodeSseEvent({ data: 'x', event })).toThrow(/SSE event type .* CR or LF/);
  });

  it('accepts NUL in an event type, which only the id forbids', () => {
    expect(encodeSseEvent({ data: 'x', event: 'a\0b' })).toBe('event: a\0b\ndata: x\n\n');
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1e21])(
    'rejects the retry %s',
    (retry) => {
      expect(() => encodeSseEvent({ data: 'x', retry })).toThrow(TypeError);
      expect(() => encodeSseEvent({ data: 'x', retry })).toThrow(/SSE retry .* non-negative/);
    },
  );
});

describe('encodeSseComment', () => {
  it('writes the heartbeat form with no text', () => {
    expect(encodeSseComment()).toBe(':\n\n');
    expect(encodeSseComment('')).toBe(':\n\n');
  });

  it('writes text after a colon and a space', () => {
    expect(encodeSseComment('ping')).toBe(': ping\n\n');
  });

  it('writes one comment line per line of text', () => {
    expect(encodeSseComment('a\nb\r\nc\rd')).toBe(': a\n: b\n: c\n: d\n\n');
    expect(encodeSseComment('a\n\nb')).toBe(': a\n: \n: b\n\n');
  });
});

/** What the decoder makes of `init`: line breaks normalised to LF, empty event type = absent. */
function expected(init: SseEventInit, lastEventId: string): SseEvent {
  const event: SseEvent = { data: init.data.replace(/\r\n?/g, '\n'), lastEventId };
  if (init.event !== undefined && init.event !== '') event.event = init.event;
  if (init.id !== undefined) event.id = init.id;
  if (init.retry !== undefined) event.retry = init.retry;
  return event;
}

describe('encoder to decoder round trip', () => {
  const cases: SseEventInit[] = [
    { data: 'plain' },
    { data: '' },
    { data: ' leading space' },
    { data: '  two leading spaces\n   three' },
    { data: 'trailing space ' },
    { data: '\n\n' },
    { data: 'a\n\nb\n' },
    { data: 'crlf\r\nand cr\rmixed\n' },
    { data: 'data: looks like a field\n: looks like a comment\nid: 9' },
    { data: 'colons: a:b::c' },
    { data: 'héllo wörld — ünïcödé, 日本語, Ελληνικά' },
    { data: 'emoji 😀🎉👩‍👩‍👧 and 𝄞', id: '😀' },
    { data: JSON.stringify({ kind: 'task', text: 'multi\nline', n: [1, 2] }), id: '1' },
    { data: 'x', id: ' spaced id ' },
    { data: 'x', id: '' },
    { data: 'x', event: 'status-update', id: '42', retry: 1000 },
    { data: 'x', event: ' spaced type' },
    { data: 'x', event: '' },
    { data: 'x', retry: 0 },
    { data: '\uFEFFbom inside data' },
  ];

  it('decodes every encoded event back, one at a time and as one stream', () => {
    const oneByOne = new SseDecoder();
    let lastEventId = '';
    const want: SseEvent[] = [];
    for (const init of cases) {
      if (init.id !== undefined) lastEventId = init.id;
      want.push(expected(init, lastEventId));
      expect(oneByOne.push(encodeSseEvent(init))).toEqual([want[want.length - 1]]);
    }
    const stream = cases.map((init) => encodeSseEvent(init)).join('');
    const bytes = new TextEncoder().encode(stream);
    expect(new SseDecoder().push(bytes)).toEqual(want);
  });

  it('passes comments to onComment and dispatches nothing for them', () => {
    const comments: string[] = [];
    const decoder = new SseDecoder({ onComment: (text) => comments.push(text) });
    const stream =
      encodeSseComment() +
      encodeSseEvent({ data: 'a' }) +
      encodeSseComment('ping') +
      encodeSseComment(' keep\nalive') +
      encodeSseEvent({ data: 'b' });
    expect(decoder.push(stream).map((event) => event.data)).toEqual(['a', 'b']);
    expect(comments).toEqual(['', 'ping', ' keep', 'alive']);
  });
});
