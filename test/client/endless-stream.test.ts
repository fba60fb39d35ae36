/**
 * An agent whose event stream never ends its line or its event: the client must fail the
 * stream with a clear error and close the connection, not buffer without end.
 */

import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createCardResolver,
  createClient,
  ProtocolViolationError,
  type ClientOptions,
} from '../../src/client.js';
import { DEFAULT_MAX_EVENT_LENGTH } from '../../src/codecs.js';
import { cardWith, collect, startRawServer, writeEndlessly } from './support.js';

const MiB = 1024 * 1024;
/** The server stops on its own past this, so a client without a limit fails the test, not CI. */
const GIVE_UP_AFTER = DEFAULT_MAX_EVENT_LENGTH + 16 * MiB;

async function endlessAgent(prefix: string, piece: string, options: ClientOptions = {}) {
  const card = cardWith([{ url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  let sent: Promise<number> | undefined;
  const server = await startRawServer((request, res) => {
    if (request.method === 'GET') return void res.writeHead(200).end(JSON.stringify(card));
    sent = writeEndlessly(res, {
      contentType: 'text/event-stream',
      prefix,
      piece,
      giveUpAfter: GIVE_UP_AFTER,
    });
  });
  const client = await createClient(server.url, { cardResolver: createCardResolver(), ...options });
  return { client, server, sent: () => sent };
}

const message = { message: { parts: [{ text: 'go' }] } };
const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };
/** The SSE frame of a `task` event for {@link task}, with an `id:` line when given one. */
const taskFrame = (id?: string): string =>
  `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task } })}\n\n`;

/** Reads a stream until it fails: the events seen, then what it threw. */
async function readUntilFailure(stream: AsyncIterable<unknown>) {
  const seen: unknown[] = [];
  const error = await (async () => {
    for await (const event of stream) seen.push(event);
  })().catch((e: unknown) => e);
  return { seen, error };
}

describe('a stream that never ends', () => {
  it('fails on a line longer than the limit, after the events before it, and does not resume', async () => {
    // A task event with an id first: a stream that broke by accident would be resumed from it.
    const agent = await endlessAgent(`${taskFrame('1')}data: `, 'x'.repeat(MiB));
    const { seen, error } = await readUntilFailure(agent.client.sendStreamingMessage(message));
    expect(seen).toEqual([{ task }]);
    expect(error).toBeInstanceOf(ProtocolViolationError);
    expect((error as Error).message).toContain(`more than ${DEFAULT_MAX_EVENT_LENGTH} characters`);
    expect(await agent.sent()).toBeLessThan(GIVE_UP_AFTER);
    // A stream the agent broke is not resumed: one streaming call, no SubscribeToTask after it.
    expect(agent.server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('fails on an event whose data lines never end, too', async () => {
    const line = `data: ${'y'.repeat(MiB - 7)}\n`;
    const agent = await endlessAgent('', line);
    await expect(collect(agent.client.sendStreamingMessage(message))).rejects.toBeInstanceOf(
      ProtocolViolationError,
    );
    expect(await agent.sent()).toBeLessThan(GIVE_UP_AFTER);
  });

  it('takes its limit from the client options', async () => {
    const first = taskFrame();
    const agent = await endlessAgent(`${first}data: `, 'x'.repeat(1024), {
      maxEventLength: first.length,
    });
    const { seen, error } = await readUntilFailure(agent.client.sendStreamingMessage(message));
    expect(seen).toEqual([{ task }]);
    expect(error).toBeInstanceOf(ProtocolViolationError);
    expect((error as Error).message).toContain(`more than ${first.length} characters`);
    expect(await agent.sent()).toBeLessThan(GIVE_UP_AFTER);
  });

  it('refuses a limit that is not a positive integer', async () => {
    for (const maxEventLength of [0, -5, 2.5]) {
      await expect(
        createClient('http://127.0.0.1:9', { card: cardWith([]), maxEventLength }),
      ).rejects.toBeInstanceOf(ConfigurationError);
    }
  });
});
