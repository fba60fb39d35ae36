import { describe, expect, it } from 'vitest';
import { newTimeOrderedUuid, newUuid } from '../../src/protocol/uuid.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newUuid', () => {
  it('makes distinct random version 4 UUIDs, across refills of its random pool', () => {
    const ids = Array.from({ length: 1000 }, () => newUuid());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('newTimeOrderedUuid', () => {
  it('makes version 7 UUIDs carrying the Unix time in milliseconds', () => {
    const id = newTimeOrderedUuid(Date.UTC(2026, 10, 29, 12, 0, 0, 123));
    expect(id).toMatch(V7);
    const millis = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(new Date(millis).toISOString()).toBe('2026-11-29T12:00:00.123Z');
  });

  it('sorts by creation time, and stays unique within one millisecond', () => {
    const ids = [0, 1, 255, 256, 2 ** 32 - 1, 2 ** 32, 2 ** 40, 2 ** 48 - 1].map((ms) =>
      newTimeOrderedUuid(ms),
    );
    expect([...ids].sort()).toEqual(ids);
    const sameMs = Array.from({ length: 1000 }, () => newTimeOrderedUuid(1_700_000_000_000));
    expect(new Set(sameMs).size).toBe(sameMs.length);
    for (const id of sameMs) expect(id.slice(0, 13)).toBe(sameMs[0]?.slice(0, 13));
  });
});
