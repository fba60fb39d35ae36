/**
 * The fixture corpus through the gRPC binding's codec: every valid fixture, once parsed, survives
 * the trip to protobuf binary and back unchanged — except what protobuf cannot carry: a field of
 * implicit presence at its default (`""`, `0`, `false`, an empty list, the zero enum value) is not on the wire,
 * so it comes back absent (and a required one that is valid at its default comes back at it).
 */

import { expect, it } from 'vitest';
import { ProtoJsonCodec } from '../../../src/bindings/grpc/grpc-codec.js';
import { file_a2a } from '../../../src/bindings/grpc/generated/a2a_pb.js';
import { parseMessage } from '../../../src/protocol/validation.js';
import { loadCorpus } from '../../protocol/fixture-corpus.js';

const corpus = loadCorpus();

function codecOf(type: string): ProtoJsonCodec {
  const schema = file_a2a.messages.find((message) => message.name === type);
  if (schema === undefined) throw new Error(`${type} is no message of a2a.proto`);
  return new ProtoJsonCodec(schema);
}

/**
 * The value without fields at a protobuf default (children first, so that an object left empty
 * goes too), timestamps in one form, bytes in the standard base64 alphabet.
 */
function withoutDefaults(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => withoutDefaults(item) ?? null);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === 'object' && value !== null) {
    const fields: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      const kept = withoutDefaults(field, name);
      if (kept !== undefined) fields[name] = kept;
    }
    return Object.keys(fields).length === 0 ? undefined : fields;
  }
  if (value === '' || value === 0 || value === false) return undefined;
  if (typeof value !== 'string') return value;
  if (value.endsWith('_UNSPECIFIED')) return undefined;
  if (/T\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) return new Date(value).toISOString();
  // bytes: the URL-safe base64 alphabet (accepted on input) comes back standard
  if (key === 'raw') return value.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  return value;
}

it.each(corpus.valid.map((fixture) => [`${fixture.type}/${fixture.name}`, fixture] as const))(
  '%s round-trips through protobuf',
  (_name, fixture) => {
    const parsed = parseMessage(fixture.type, fixture.input);
    if (!parsed.success) throw new Error(`${fixture.name} does not parse`);
    const codec = codecOf(fixture.type);
    const decoded = codec.decode(codec.encode(parsed.value));
    expect(withoutDefaults(decoded)).toEqual(withoutDefaults(parsed.value));
    expect(parseMessage(fixture.type, decoded).success).toBe(true);
  },
);
