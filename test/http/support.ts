/**
 * Shared fixtures of the HTTP and JSON-RPC tests: small agents on the real runtime, a server on
 * a loopback port, and helpers to call it the way a client would.
 */

import { afterEach } from 'vitest';
import {
  createNodeServer,
  type A2ANodeServer,
  type A2ANodeServerOptions,
} from '../../src/http/adapters/node.js';
import type { A2AAgentMount } from '../../src/http/http-options.js';
import { SseDecoder, type SseEvent } from '../../src/protocol/sse-decoder.js';
import type { AgentDefinition } from '../../src/runtime/agent.js';
import { createRequestHandler } from '../../src/compose/create-request-handler.js';
import { testAgent } from '../support/agents.js';
import type { A2ARequestHandler } from '../../src/runtime/request-handler.js';

export { extensionAgent, testAgent } from '../support/agents.js';

export function handlerFor(agent: AgentDefinition = testAgent): A2ARequestHandler {
  return createRequestHandler({ agent });
}

/** A running server; stopped after each test. */
export interface TestServer {
  readonly url: string;
  readonly port: number;
  readonly server: A2ANodeServer;
}

const running: A2ANodeServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.shutdown({ deadlineMs: 1_000 })));
});

/** Starts the node adapter on a loopback port with the test agent at the root by default. */
export async function startServer(
  options: Partial<A2ANodeServerOptions> & { agents?: readonly A2AAgentMount[] } = {},
): Promise<TestServer> {
  const server = createNodeServer({
    agents: [{ path: '', handler: handlerFor() }],
    ...options,
  });
  running.push(server);
  const { url, port } = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, port, server };
}

export const A2A_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

let counter = 0;

/** A `SendMessage` params object for `text`. */
export function messageParams(text: string): { message: Record<string, unknown> } {
  counter++;
  return {
    message: { messageId: `m-${counter}-${Date.now()}`, role: 'ROLE_USER', parts: [{ text }] },
  };
}

/** POSTs a raw body to the JSON-RPC endpoint. */
export function postRaw(
  url: string,
  body: string,
  headers: Record<string, string> = A2A_HEADERS,
): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body });
}

/** Calls a method and returns the parsed JSON-RPC response. */
export async function call(
  url: string,
  method: string,
  params?: unknown,
  options: { id?: string | number | null; headers?: Record<string, string> } = {},
): Promise<JsonRpcResponse> {
  const request: Record<string, unknown> = { jsonrpc: '2.0', id: options.id ?? 1, method };
  if (params !== undefined) request.params = params;
  const response = await postRaw(url, JSON.stringify(request), {
    ...A2A_HEADERS,
    ...options.headers,
  });
  return (await response.json()) as JsonRpcResponse;
}

/** A parsed JSON-RPC response (loosely typed for assertions). */
export interface JsonRpcResponse {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown> & {
    task?: Record<string, unknown> & { id: string; status: { state: string } };
  };
  error?: { code: number; message: string; data?: Record<string, unknown>[] };
}

/** Reads a whole SSE body into events. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  if (response.body === null) return events;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    events.push(...decoder.push(chunk));
  }
  events.push(...decoder.end());
  return events;
}

/** Reads the first chunk of a streamed body as text; the reader stays locked. */
export async function readFirstChunk(response: Response): Promise<string> {
  const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array> | undefined;
  const first = await reader?.read();
  return new TextDecoder().decode(first?.value);
}

/** The task id in the first SSE frame of `text` (a `task` event). */
export function firstTaskId(text: string): string | undefined {
  const data = text.split('data: ')[1]?.split('\n')[0] ?? '{}';
  return (JSON.parse(data) as JsonRpcResponse).result?.task?.id;
}
