import { describe, expect, it } from 'vitest';

import { SerialQueue } from '../../src/runtime/serial-queue.js';
import { deferred } from '../support/sync.js';

describe('SerialQueue', () => {
  it('starts a job at once when idle, in the caller’s turn', () => {
    const queue = new SerialQueue();
    let started = false;
    void queue.run(() => {
      started = true;
      return Promise.resolve();
    });
    expect(started).toBe(true);
    expect(queue.pending).toBe(1);
  });

  it('starts each job only after the one before settled, in order, even when one fails', async () => {
    const queue = new SerialQueue();
    const order: string[] = [];
    const first = deferred<string>();
    const second = deferred<string>();
    const a = queue.run(() => {
      order.push('a started');
      return first.promise;
    });
    const b = queue.run(() => {
      order.push('b started');
      return second.promise;
    });
    const c = queue.run(() => {
      order.push('c started');
      return Promise.resolve('c');
    });
    expect(queue.pending).toBe(3);
    await Promise.resolve();
    expect(order).toEqual(['a started']);

    first.reject(new Error('a failed'));
    await expect(a).rejects.toThrow('a failed');
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['a started', 'b started']);

    second.resolve('b');
    expect(await b).toBe('b');
    expect(await c).toBe('c');
    expect(order).toEqual(['a started', 'b started', 'c started']);
  });

  it('is idle once every job given so far has settled', async () => {
    const queue = new SerialQueue();
    await queue.idle();
    const job = deferred<void>();
    void queue.run(() => job.promise);
    let idle = false;
    const idled = queue.idle().then(() => (idle = true));
    await new Promise((r) => setImmediate(r));
    expect(idle).toBe(false);
    job.resolve();
    await idled;
    expect(queue.pending).toBe(0);
  });
});
