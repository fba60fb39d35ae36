import { describe, expect, it } from 'vitest';

import { readAtMost, TOO_LONG } from '../../src/protocol/bounded-read.js';

/** A body of the given chunks that records whether it was cancelled and how far it was read. */
function bodyOf(chunks: readonly string[]): {
  body: ReadableStream<Uint8Array>;
  pulled: () => number;
  cancelled: () => boolean;
} {
  const encoder = new TextEncoder();
  let next = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[next++];
        if (chunk === undefined) controller.close();
        else controller.enqueue(encoder.encode(chunk));
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, pulled: () => next, cancelled: () => cancelled };
}

const text = (bytes: Uint8Array | typeof TOO_LONG): string => {
  if (bytes === TOO_LONG) throw new Error('unexpectedly too long');
  return new TextDecoder().decode(bytes);
};

describe('readAtMost', () => {
  it('reads a body up to and including the limit, joining its chunks', async () => {
    expect(text(await readAtMost(bodyOf(['ab', 'cd', 'e']).body, 5))).toBe('abcde');
    expect(text(await readAtMost(bodyOf(['abc']).body, 3))).toBe('abc');
    expect(text(await readAtMost(bodyOf([]).body, 0))).toBe('');
    expect(text(await readAtMost(null, 0))).toBe('');
  });

  it('stops at the first chunk past the limit and cancels the rest of the body', async () => {
    const source = bodyOf(['abc', 'def', 'ghi', 'jkl']);
    expect(await readAtMost(source.body, 5)).toBe(TOO_LONG);
    expect(source.cancelled()).toBe(true);
    expect(source.pulled()).toBe(2);
  });

  it('rejects with what the body rejects with', async () => {
    const failure = new Error('connection reset');
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(failure);
      },
    });
    await expect(readAtMost(body, 10)).rejects.toBe(failure);
  });
});
