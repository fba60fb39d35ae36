/**
 * The per-origin queue in front of webhook attempts: at most `limit` in flight per origin, the
 * others served in arrival order, origins independent, an aborted wait given up, and no state
 * kept for an idle origin.
 */

import { describe, expect, it } from 'vitest';
import { OriginGate } from '../../src/push/origin-gate.js';

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('OriginGate', () => {
  it('lets `limit` attempts in per origin and the next in arrival order as turns end', async () => {
    const gate = new OriginGate(2);
    const first = await gate.enter('http://a');
    const second = await gate.enter('http://a');
    const third = gate.enter('http://a');
    const fourth = gate.enter('http://a');
    expect(await settled(third)).toBe(false);
    // Another origin is not behind a's queue.
    const other = await gate.enter('http://b');
    first();
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false);
    first(); // a second call of the same release gives nothing away
    expect(await settled(fourth)).toBe(false);
    second();
    expect(await settled(fourth)).toBe(true);
    other();
    (await third)();
    (await fourth)();
    expect(gate.origins).toBe(0);
  });

  it('gives up a wait whose signal is aborted, and skips it when a turn ends', async () => {
    const gate = new OriginGate(1);
    const only = await gate.enter('http://a');
    const stop = new AbortController();
    const abandoned = gate.enter('http://a', stop.signal);
    const next = gate.enter('http://a');
    stop.abort();
    await expect(abandoned).rejects.toMatchObject({ name: 'AbortError' });
    only();
    expect(await settled(next)).toBe(true);
    (await next)();
    expect(gate.origins).toBe(0);
    await expect(gate.enter('http://a', stop.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(gate.origins).toBe(0);
  });
});
