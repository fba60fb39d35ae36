/**
 * Random (version 4) UUIDs for task, context, message and artifact ids. Unlike
 * `crypto.randomUUID()` on Node — whose result is a rope of concatenated pieces that V8 must
 * flatten the first time it is hashed or serialized, costing more than generating it — these are
 * built flat in one call. Randomness comes from `crypto.getRandomValues`, drawn in blocks.
 */

const HEX = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const DASH = 0x2d;
const POOL = new Uint8Array(16 * 256);
let poolOffset = POOL.length;
const CODES: number[] = new Array<number>(36).fill(DASH);

/** A new random UUID, lower-case, e.g. `"3f36680c-7f37-4a5f-945e-d78981fafd36"`. */
export function newUuid(): string {
  if (poolOffset === POOL.length) {
    crypto.getRandomValues(POOL);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += 16;
  let out = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) CODES[out++] = DASH;
    let byte = POOL[start + i] as number;
    if (i === 6)
      byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // RFC 4122 variant
    CODES[out++] = HEX[byte >> 4] as number;
    CODES[out++] = HEX[byte & 15] as number;
  }
  return String.fromCharCode.apply(null, CODES);
}
