/**
 * A dropped A2A 0.3 stream resumes like a 1.0 one: a proxy cuts `message/stream` after k events,
 * and Tandem's client, held to the 0.3 interface of a `--compat 0.3` server, goes on with
 * `tasks/resubscribe` and `Last-Event-ID` (the compat server numbers its 0.3 events as it does
 * its 1.0 ones), delivering each event once.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { createCardResolver, createClient } from '../../../src/client.js';
import type { AgentCard } from '../../../src/index.js';
import { createNodeServer, createRequestHandler } from '../../../src/server.js';
import { compatV03 } from '../../../src/server-compat.js';
import { PASS, collect, describeEvent, startFaultProxy, type Fault } from '../../client/support.js';
import { clientTestAgent } from '../../support/agents.js';

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A `--compat 0.3` server of the client tests' agent, stopped after the test. */
async function startCompatServer(): Promise<{ url: string }> {
  const server = createNodeServer({
    agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
    heartbeatMs: 0,
    compat: compatV03(),
  });
  closers.push(() => server.shutdown({ deadlineMs: 500 }));
  return server.listen({ port: 0, host: '127.0.0.1' });
}

const streamOf = (text: string) => ({ message: { parts: [{ text }] } });

/** The client of `url` held to the 0.3 interfaces of its card. */
async function v03Client(url: string) {
  const served = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as AgentCard;
  const card = {
    ...served,
    supportedInterfaces: served.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
  };
  return createClient(url, {
    card,
    cardResolver: createCardResolver(),
    retry: { baseDelayMs: 1, maxDelayMs: 20 },
  });
}

describe('0.3 stream resume', () => {
  it('resumes after every k events and delivers each event once', async () => {
    const { url: direct } = await startCompatServer();
    const reference = (
      await collect((await v03Client(direct)).sendStreamingMessage(streamOf('stream 4')))
    ).map(describeEvent);
    expect(reference).toHaveLength(7);
    for (let k = 1; k < reference.length; k++) {
      const { url } = await startCompatServer();
      const proxy = await startFaultProxy(url, (request): Fault =>
        request.rpcMethod === 'message/stream' ? { kind: 'cut', afterEvents: k } : PASS,
      );
      const client = await v03Client(proxy.url);
      expect(client.selectedInterface.protocolVersion).toBe('0.3');
      const events = await collect(client.sendStreamingMessage(streamOf('stream 4')));
      expect(events.map(describeEvent), `cut after ${k} events`).toEqual(reference);
      const resubscribes = proxy.requests.filter((r) => r.rpcMethod === 'tasks/resubscribe');
      expect(resubscribes.length, `cut after ${k} events`).toBe(1);
      expect(resubscribes[0]?.headers['last-event-id']).toBe(String(k));
    }
  });
});
