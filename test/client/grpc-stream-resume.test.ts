/**
 * Streams that drop over gRPC: a server interceptor ends the first `SendStreamingMessage` with
 * `UNAVAILABLE` after k messages, for every k before the end; the client numbers the events from
 * the `a2a-first-event-id` response header, resumes with `SubscribeToTask` and `last-event-id`
 * metadata, and the caller sees exactly the uninterrupted sequence, once.
 */

import {
  Metadata,
  ServerInterceptingCall,
  status as GrpcStatus,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { createCardResolver, createClient } from '../../src/client.js';
import { createNodeServer, createRequestHandler, type A2ANodeServer } from '../../src/server.js';
import { createGrpcServer, type A2AGrpcServer } from '../../src/server-grpc.js';
import { collect, describeEvent, testAgent } from './support.js';

const STREAM_PATH = '/lf.a2a.v1.A2AService/SendStreamingMessage';
const SUBSCRIBE_PATH = '/lf.a2a.v1.A2AService/SubscribeToTask';

/** What the interceptor saw of the calls. */
interface Seen {
  readonly resumedAfter: string[];
}

/** Ends the first `SendStreamingMessage` with `UNAVAILABLE` after `k` messages (never, if undefined). */
function cutter(k: number | undefined, seen: Seen): ServerInterceptor {
  let streams = 0;
  return (method, call) => {
    const cut = method.path === STREAM_PATH && streams++ === 0 && k !== undefined;
    let sent = 0;
    const intercepted: ServerInterceptingCall = new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, forward) => {
            if (method.path === SUBSCRIBE_PATH) {
              seen.resumedAfter.push(String(metadata.get('last-event-id')[0] ?? ''));
            }
            forward(metadata);
          },
        }),
      sendMessage: (message, forward) => {
        if (!cut) return void forward(message);
        sent++;
        if (sent > (k ?? 0)) return; // after the cut: dropped
        forward(message);
        // The status waits for the k-th message to be sent, and goes out right after it.
        if (sent === k) {
          intercepted.sendStatus({
            code: GrpcStatus.UNAVAILABLE,
            details: 'connection cut by the test',
            metadata: new Metadata(),
          });
        }
      },
    });
    return intercepted;
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Tandem on HTTP and gRPC, the card listing gRPC; returns the HTTP URL of the card. */
async function serve(interceptor: ServerInterceptor): Promise<string> {
  const mounts = [{ path: '', handler: createRequestHandler({ agent: testAgent }) }];
  const grpc: A2AGrpcServer = createGrpcServer({
    agents: mounts,
    grpcInterceptors: [interceptor],
  });
  const server: A2ANodeServer = createNodeServer({
    agents: mounts.map((mount) => ({ ...mount, interfaces: grpc.interfacesOf(mount.path) })),
    heartbeatMs: 0,
  });
  closers.push(async () => {
    await Promise.all([server.shutdown({ deadlineMs: 500 }), grpc.shutdown({ deadlineMs: 500 })]);
  });
  await grpc.listen({ port: 0, host: '127.0.0.1' });
  return (await server.listen({ port: 0, host: '127.0.0.1' })).url;
}

const streamOf = (text: string) => ({ message: { parts: [{ text }] } });

describe('gRPC stream resume', () => {
  it('resumes a dropped SendStreamingMessage after every k events and delivers each event once', async () => {
    const options = { cardResolver: createCardResolver(), bindings: ['GRPC'] as const };
    const reference = await (async () => {
      const url = await serve(cutter(undefined, { resumedAfter: [] }));
      const client = await createClient(url, options);
      return (await collect(client.sendStreamingMessage(streamOf('stream 4')))).map(describeEvent);
    })();
    expect(reference).toHaveLength(7);
    for (let k = 1; k < reference.length; k++) {
      const seen: Seen = { resumedAfter: [] };
      const url = await serve(cutter(k, seen));
      const client = await createClient(url, {
        ...options,
        retry: { baseDelayMs: 1, maxDelayMs: 20 },
      });
      const events = await collect(client.sendStreamingMessage(streamOf('stream 4')));
      expect(events.map(describeEvent), `cut after ${k} events`).toEqual(reference);
      // Tandem numbers the events of a task from 1: the k-th event has id k.
      expect(seen.resumedAfter, `cut after ${k} events`).toEqual([String(k)]);
    }
  });
});
