import { describe, expect, it } from 'vitest';
import {
  errorEnvelope,
  idTokenOf,
  resultEnvelope,
} from '../../../src/bindings/jsonrpc/jsonrpc-envelope.js';
import { TaskNotFoundError } from '../../../src/index.js';

function tokenFor(text: string): string {
  const parsed = JSON.parse(text) as { id: string | number | null };
  return idTokenOf(text, parsed.id);
}

describe('idTokenOf', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":1,"method":"GetTask"}', '1'],
    // A safe integer is echoed in canonical form: the same JSON value, whatever its spelling.
    ['{"jsonrpc":"2.0","id":1.0,"method":"GetTask"}', '1'],
    ['{"id":10000000000000000000}', '10000000000000000000'],
    ['{"id":12345678901234567890}', '12345678901234567890'],
    ['{"id":-0.5e3}', '-500'],
    // Other numbers keep the client's token, so that no precision is lost on the way back.
    ['{"id":-0.5e-3}', '-0.5e-3'],
    ['{"id":2.50}', '2.50'],
    ['{ "id" :\t42 , "x": 1 }', '42'],
    ['{"id":"abc"}', '"abc"'],
    ['{"id":"quote\\"and\\\\slash"}', '"quote\\"and\\\\slash"'],
    ['{"id":null}', 'null'],
  ])('echoes the id of %s as %s', (text, token) => {
    expect(tokenFor(text)).toBe(token);
  });

  it('finds the top-level id after nested objects that have ids of their own', () => {
    const text =
      '{"params":{"id":7.5,"nested":[{"id":1.5},"}\\"{"]},"method":"GetTask","id":1.50,"jsonrpc":"2.0"}';
    expect(tokenFor(text)).toBe('1.50');
  });

  it('takes the last duplicate id, as JSON.parse does', () => {
    expect(tokenFor('{"id":1.5,"id":2.50}')).toBe('2.50');
  });

  it('reads a key spelled with escapes', () => {
    expect(tokenFor('{"\\u0069d":3.50}')).toBe('3.50');
  });
});

describe('envelopes', () => {
  it('splices the result JSON and the id token as is', () => {
    expect(resultEnvelope('1.0', '{"a":1}')).toBe('{"jsonrpc":"2.0","id":1.0,"result":{"a":1}}');
  });

  it('writes an A2A error with its ErrorInfo in data', () => {
    const body = JSON.parse(
      errorEnvelope('"x"', new TaskNotFoundError(undefined, { metadata: { taskId: 't' } })),
    ) as unknown;
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: {
        code: -32001,
        message: 'Task not found',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_FOUND',
            domain: 'a2a-protocol.org',
            metadata: { taskId: 't' },
          },
        ],
      },
    });
  });
});
