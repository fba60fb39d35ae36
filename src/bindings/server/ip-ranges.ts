/**
 * IP addresses and CIDR ranges, IPv4 and IPv6, for the trusted proxies of a server
 * (`trusted-proxies.ts`). Written here rather than with `node:net`'s `BlockList` so that the
 * server core stays free of `node:` imports (the fetch handler runs on edge runtimes too).
 * An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`, as a dual-stack socket reports it) is the
 * IPv4 address.
 */

/** An address as 4 (IPv4) or 16 (IPv6) bytes. */
type Bytes = readonly number[];

function parseIpv4(text: string): Bytes | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    bytes.push(Number(part));
  }
  return bytes;
}

function groupsOf(text: string): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  const parts = text.split(':');
  for (const [index, part] of parts.entries()) {
    if (index === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(((v4[0] as number) << 8) | (v4[1] as number));
      groups.push(((v4[2] as number) << 8) | (v4[3] as number));
      continue;
    }
    if (!/^[0-9a-f]{1,4}$/i.test(part)) return undefined;
    groups.push(parseInt(part, 16));
  }
  return groups;
}

function parseIpv6(text: string): Bytes | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [
    ...head,
    ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => 0),
    ...tail,
  ];
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}

/** The bytes of an address (brackets and a zone index allowed), mapped IPv4 as IPv4. */
export function parseIp(text: string): Bytes | undefined {
  const bare = text
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  if (!bare.includes(':')) return parseIpv4(bare);
  const bytes = parseIpv6(bare);
  if (bytes === undefined) return undefined;
  const mapped =
    bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

/** A range of addresses: a CIDR block, or one address. */
export class IpRange {
  readonly #bytes: Bytes;
  readonly #prefix: number;

  private constructor(bytes: Bytes, prefix: number) {
    this.#bytes = bytes;
    this.#prefix = prefix;
  }

  /** The range of `10.0.0.0/8`, `fd00::/8` or `203.0.113.7`; `undefined` when it is none. */
  static parse(text: string): IpRange | undefined {
    const [address = '', prefix, extra] = text.trim().split('/');
    if (extra !== undefined) return undefined;
    const bytes = parseIp(address);
    if (bytes === undefined) return undefined;
    const bits = bytes.length * 8;
    if (prefix === undefined) return new IpRange(bytes, bits);
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return undefined;
    return new IpRange(bytes, Number(prefix));
  }

  /** Whether `address` (in any form {@link parseIp} reads) is in the range. */
  contains(address: Bytes): boolean {
    if (address.length !== this.#bytes.length) return false;
    let left = this.#prefix;
    for (let i = 0; i < address.length && left > 0; i += 1) {
      const bits = Math.min(8, left);
      const mask = (0xff << (8 - bits)) & 0xff;
      if (((address[i] as number) & mask) !== ((this.#bytes[i] as number) & mask)) return false;
      left -= bits;
    }
    return true;
  }
}
