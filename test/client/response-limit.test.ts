/**
 * An agent whose answer (not a stream) is too long, or never ends: the client must stop reading
 * at `maxResponseBytes`, close the connection and fail with a clear error — for JSON-RPC and
 * HTTP+JSON answers, error bodies, and the agent card.
 */

import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  AgentCardError,
  ConfigurationError,
  createCardResolver,
  createClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  ProtocolViolationError,
  type ClientOptions,
} from '../../src/client.js';
import { cardWith, startRawServer, writeEndlessly, type SeenRequest } from './support.js';

const MiB = 1024 * 1024;
/** The server stops on its own past this, so a client without a limit fails the test, not CI. */
const GIVE_UP_AFTER = DEFAULT_MAX_RESPONSE_BYTES + 16 * MiB;

const JSONRPC = [{ url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];
const REST = [{ url: '/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }];
const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } };

/** An agent that answers every request with `answer`, and a client of it. */
async function agentAnswering(
  interfaces: typeof JSONRPC,
  answer: (request: SeenRequest, res: ServerResponse) => void,
  options: ClientOptions = {},
) {
  const card = cardWith(interfaces);
  const server = await startRawServer((request, res) => {
    answer(request, res);
  });
  // The card is given, not fetched: the limits under test would apply to it too.
  const client = await createClient(server.url, { card, ...options });
  return { client, server };
}

describe('an answer longer than maxResponseBytes', () => {
  it('fails a JSON-RPC call whose answer never ends, at the default limit, and hangs up', async () => {
    let sent: Promise<number> | undefined;
    const { client } = await agentAnswering(JSONRPC, (_request, res) => {
      sent = writeEndlessly(res, {
        contentType: 'application/json',
        piece: `{"jsonrpc":"2.0","id":1,"result":"${'x'.repeat(MiB)}`,
        giveUpAfter: GIVE_UP_AFTER,
      });
    });
    const error = await client.getTask({ id: 't1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolViolationError);
    expect((error as Error).message).toContain(`longer than ${DEFAULT_MAX_RESPONSE_BYTES} bytes`);
    expect(await sent).toBeLessThan(GIVE_UP_AFTER);
  });

  it('accepts an answer of exactly the limit, and refuses one byte more', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: task });
    const bytes = Buffer.byteLength(body);
    const answer = (_request: SeenRequest, res: ServerResponse): void =>
      void res.writeHead(200, { 'content-type': 'application/json' }).end(body);

    const exact = await agentAnswering(JSONRPC, answer, { maxResponseBytes: bytes });
    expect(await exact.client.getTask({ id: 't1' })).toEqual(task);

    const under = await agentAnswering(JSONRPC, answer, { maxResponseBytes: bytes - 1 });
    const error = await under.client.getTask({ id: 't1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolViolationError);
    expect((error as Error).message).toContain(`longer than ${bytes - 1} bytes`);
  });

  it('counts bytes, not characters', async () => {
    // Each "é" is two bytes of UTF-8: the text is 1,000 characters, its body 2,000 bytes and more.
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      result: { ...task, metadata: { note: 'é'.repeat(1000) } },
    });
    const { client } = await agentAnswering(
      JSONRPC,
      (_request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(body),
      { maxResponseBytes: body.length },
    );
    await expect(client.getTask({ id: 't1' })).rejects.toBeInstanceOf(ProtocolViolationError);
  });

  it('fails an HTTP+JSON call, an error body included, instead of reading it whole', async () => {
    let sent: Promise<number> | undefined;
    const { client } = await agentAnswering(
      REST,
      (_request, res) => {
        sent = writeEndlessly(res, {
          status: 500,
          contentType: 'text/html',
          piece: `<p>${'oops '.repeat(1000)}</p>`,
          giveUpAfter: GIVE_UP_AFTER,
        });
      },
      { maxResponseBytes: 64 * 1024, retry: false },
    );
    const error = await client.getTask({ id: 't1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolViolationError);
    expect((error as Error).message).toContain('longer than 65536 bytes (maxResponseBytes)');
    expect(await sent).toBeLessThan(GIVE_UP_AFTER);
  });

  it('fails the card of an agent with an AgentCardError naming the card', async () => {
    let sent: Promise<number> | undefined;
    const server = await startRawServer((_request, res) => {
      sent = writeEndlessly(res, {
        contentType: 'application/json',
        piece: `{"name":"${'n'.repeat(MiB)}`,
        giveUpAfter: GIVE_UP_AFTER,
      });
    });
    const error = await createClient(server.url, {
      cardResolver: createCardResolver(),
      maxResponseBytes: MiB,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentCardError);
    expect((error as Error).message).toContain('agent-card.json');
    expect((error as Error).message).toContain(`longer than ${MiB} bytes`);
    expect(await sent).toBeLessThan(GIVE_UP_AFTER);
  });

  it('refuses a limit that is not a positive integer', async () => {
    for (const maxResponseBytes of [0, -5, 2.5, Number.NaN]) {
      await expect(
        createClient('http://127.0.0.1:9', { card: cardWith([]), maxResponseBytes }),
      ).rejects.toBeInstanceOf(ConfigurationError);
    }
  });
});
