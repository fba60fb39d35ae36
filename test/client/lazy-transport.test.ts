/**
 * Transports chosen by binding name and loaded lazily: a factory may be async, so that a
 * transport's module (and the libraries it imports) loads only when a card selects its binding.
 * A factory that fails, or gives something that is not a transport, fails creation with a
 * message naming the binding.
 */

import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createClient,
  type ClientTransport,
  type ClientTransportFactory,
} from '../../src/client.js';
import { moduleLoads } from './lazy/module-loads.js';
import { cardWith } from './support.js';

const ECHO = 'https://example.com/bindings/echo/v1';

/** Registered the way a gRPC transport is: its module is imported by the factory. */
const lazyEcho: ClientTransportFactory = async (context) =>
  (await import('./lazy/echo-client-transport.js')).createEchoClientTransport(context);

const echoInterface = { url: '/echo', protocolBinding: ECHO, protocolVersion: '1.0' };
const rpcInterface = { url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' };

describe('lazy transports', () => {
  it('loads a transport module only when the card selects its binding', async () => {
    const other = await createClient('http://agent.example.com', {
      card: cardWith([rpcInterface, echoInterface]),
      bindings: ['JSONRPC', ECHO],
      transports: { [ECHO]: lazyEcho },
    });
    expect(other.selectedInterface.protocolBinding).toBe('JSONRPC');
    expect(moduleLoads).toEqual([]);

    const client = await createClient('http://agent.example.com', {
      card: cardWith([rpcInterface, echoInterface]),
      bindings: [ECHO, 'JSONRPC'],
      transports: { [ECHO]: lazyEcho },
    });
    expect(moduleLoads).toEqual(['echo-client-transport']);
    expect(client.selectedInterface.url).toBe('http://agent.example.com/echo');
    expect((await client.getTask({ id: 't7' })).id).toBe('t7');
    const events = [];
    for await (const event of client.subscribeToTask({ id: 't8' })) events.push(event);
    expect(events.map((e) => e.task?.id)).toEqual(['t8']);
  });

  it('names the binding when its transport cannot be loaded', async () => {
    const missing = new Error("Cannot find package 'an-http2-library'");
    const error = await createClient('http://agent.example.com', {
      card: cardWith([echoInterface]),
      bindings: [ECHO],
      transports: { [ECHO]: () => Promise.reject(missing) },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      `The client transport for the binding ${ECHO} could not be created: ` +
        "Cannot find package 'an-http2-library'",
    );
    expect((error as Error).cause).toBe(missing);
  });

  it('refuses a factory that gives something other than a transport', async () => {
    const legacy = () => ({ protocolBinding: ECHO, call: () => undefined }) as unknown;
    const error = await createClient('http://agent.example.com', {
      card: cardWith([echoInterface]),
      bindings: [ECHO],
      transports: { [ECHO]: legacy as () => ClientTransport },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('needs the methods unary(call) and stream(call)');
    await expect(
      createClient('http://agent.example.com', {
        card: cardWith([echoInterface]),
        transports: { [ECHO]: 'grpc' as unknown as ClientTransportFactory },
      }),
    ).rejects.toThrow(`transports["${ECHO}"] must be a function`);
  });
});
