/**
 * UUIDs for task, context, message and artifact ids: random (version 4), and time-ordered
 * (version 7) for task ids. Unlike
 * `crypto.randomUUID()` on Node — whose result is a rope of concatenated pieces that V8 must
 * flatten the first time it is hashed or serialized, costing more than generating it — these are
 * built flat in one call. Randomness comes from `crypto.getRandomValues`, drawn in blocks.
 */

const HEX = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const DASH = 0x2d;
const POOL = new Uint8Array(16 * 256);
let poolOffset = POOL.length;
const CODES: number[] = new Array<number>(36).fill(DASH);

/** Sixteen random bytes at `POOL[offset]`. */
function takeRandom(): number {
  if (poolOffset === POOL.length) {
    crypto.getRandomValues(POOL);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += 16;
  return start;
}

/** Formats 16 bytes of `POOL` as a UUID, setting the version nibble and the RFC 9562 variant. */
function format(start: number, version: number): string {
  let out = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) CODES[out++] = DASH;
    let byte = POOL[start + i] as number;
    if (i === 6) byte = (byte & 0x0f) | (version << 4);
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    CODES[out++] = HEX[byte >> 4] as number;
    CODES[out++] = HEX[byte & 15] as number;
  }
  return String.fromCharCode.apply(null, CODES);
}

/** A new random (version 4) UUID, lower-case, e.g. `"3f36680c-7f37-4a5f-945e-d78981fafd36"`. */
export function newUuid(): string {
  return format(takeRandom(), 4);
}

/**
 * A new time-ordered (version 7, RFC 9562) UUID: the first 48 bits are the Unix time in
 * milliseconds, the rest random. Used for task ids: ids created close in time sort close
 * together, so a database index keyed by them takes each new task on its last pages instead of
 * a random one — the pages a commit must write stay few and hot. They reveal when the task was
 * created, which its status timestamp tells its owner anyway.
 */
export function newTimeOrderedUuid(now: number = Date.now()): string {
  const start = takeRandom();
  // 48-bit big-endian milliseconds; beyond 2^32 the high part is taken by division.
  const high = Math.floor(now / 0x100000000);
  const low = now >>> 0;
  POOL[start] = high >>> 8;
  POOL[start + 1] = high;
  POOL[start + 2] = low >>> 24;
  POOL[start + 3] = low >>> 16;
  POOL[start + 4] = low >>> 8;
  POOL[start + 5] = low;
  return format(start, 7);
}
