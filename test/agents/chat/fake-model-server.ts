/**
 * A fake OpenAI-compatible model server on loopback, for the chat agent's tests: `POST
 * /v1/chat/completions`, streaming (SSE chunks, `[DONE]`) or not, driven by the last user
 * message so that tests through a child process can steer it too:
 *
 * - anything else: the answer `echo: <text> (turns N)` (N = earlier user messages), one chunk per word
 * - `status NNN`: that HTTP status with an OpenAI-style error body that echoes the key and a URL
 * - `hang`: headers never sent
 * - `gate`: one chunk, then nothing until the test calls `release()`
 * - `slow N`: N chunks, 5 ms apart
 * - `long`: two chunks, the last with the finish reason `length`
 * - `cut`: two chunks, then the socket is destroyed
 * - `stop`: two chunks, then the response ends without a finish reason or `[DONE]`
 * - `garbage`: one chunk, then a chunk that is not JSON
 * - `fail-mid`: one chunk, then an error chunk
 *
 * A routing question (system prompt "You route requests...") is answered with N when the request
 * holds "#N", and with words without a number otherwise.
 *
 * Every request is recorded with its headers, body and a promise of its socket's close.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deferred, type Deferred } from '../../support/sync.js';

export interface ModelRequest {
  readonly headers: IncomingMessage['headers'];
  readonly body: {
    model: string;
    stream: boolean;
    temperature?: number;
    max_tokens?: number;
    messages: { role: string; content: unknown }[];
  };
  /**
   * Resolves once the response is closed: `true` when its connection closed before the answer
   * ended (the client aborted it), `false` when the answer was sent whole.
   */
  readonly closed: Promise<boolean>;
}

export interface FakeModelServer {
  /** The API base URL, `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  readonly requests: ModelRequest[];
  /** Resolves with the next request that arrives (or the nth, counting from 0). */
  request(index: number): Promise<ModelRequest>;
  /** Lets every `gate` answer continue. */
  release(): void;
  close(): Promise<void>;
}

function chunk(res: ServerResponse, content: string | undefined, finish?: string): void {
  const delta = content === undefined ? {} : { content };
  const data = {
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish ?? null }],
  };
  res.write(`data: ${JSON.stringify(data)}\n\n`);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: { type: string; text?: string }) =>
        part.type === 'text' ? part.text : '[image]',
      )
      .join(' ');
  }
  return '';
}

export async function startFakeModelServer(): Promise<FakeModelServer> {
  const requests: ModelRequest[] = [];
  const arrivals: Deferred<ModelRequest>[] = [];
  let gate = deferred();
  const arrival = (index: number): Deferred<ModelRequest> => {
    while (arrivals.length <= index) arrivals.push(deferred<ModelRequest>());
    return arrivals[index] as Deferred<ModelRequest>;
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (raw += piece));
    req.on('end', () => {
      const closed = new Promise<boolean>((resolve) =>
        res.once('close', () => resolve(!res.writableEnded)),
      );
      const body = JSON.parse(raw) as ModelRequest['body'];
      const recorded: ModelRequest = { headers: req.headers, body, closed };
      arrival(requests.length).resolve(recorded);
      requests.push(recorded);
      void answer(body, req, res);
    });
  });

  async function answer(body: ModelRequest['body'], req: IncomingMessage, res: ServerResponse) {
    const users = body.messages.filter((m) => m.role === 'user');
    const text = textOf(users[users.length - 1]?.content).trim();
    const system = textOf(body.messages[0]?.content);
    if (system.startsWith('You route requests')) {
      // A routing question: "#N" in the request picks skill N; anything else gets no number.
      const pick = /Request: .*#(\d+)/.exec(text)?.[1];
      res.writeHead(200, { 'content-type': 'application/json' });
      const content = pick ?? 'I cannot tell';
      res.end(
        JSON.stringify({
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        }),
      );
      return;
    }
    const status = /^status (\d{3})$/.exec(text);
    if (status !== null) {
      const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      res.writeHead(Number(status[1]), { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: `Bad things with key ${key} at http://10.0.0.7:8080/internal and sk-abcdefghijklmnop`,
            type: 'invalid_request_error',
          },
        }),
      );
      return;
    }
    if (text === 'hang') return;
    const words = `echo: ${text} (turns ${users.length - 1})`.split(/(?<= )/);
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: words.join('') },
              finish_reason: 'stop',
            },
          ],
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    switch (text) {
      case 'gate':
        chunk(res, 'first ');
        await gate.promise;
        chunk(res, 'second', 'stop');
        res.end('data: [DONE]\n\n');
        return;
      case 'cut':
        chunk(res, 'one ');
        chunk(res, 'two ');
        // Flushed, then the connection dies mid-answer.
        setImmediate(() => req.socket.destroy());
        return;
      case 'stop':
        chunk(res, 'one ');
        chunk(res, 'two ');
        res.end();
        return;
      case 'garbage':
        chunk(res, 'one ');
        res.end('data: {not json\n\n');
        return;
      case 'fail-mid':
        chunk(res, 'one ');
        res.end(
          `data: ${JSON.stringify({ error: { message: 'the GPU at http://10.0.0.7 melted' } })}\n\n`,
        );
        return;
    }
    if (text === 'long') {
      chunk(res, 'and so ');
      chunk(res, 'on', 'length');
      res.end('data: [DONE]\n\n');
      return;
    }
    const slow = /^slow (\d+)$/.exec(text);
    if (slow !== null) {
      const count = Number(slow[1]);
      for (let i = 0; i < count; i++) {
        chunk(res, `t${i} `);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      chunk(res, undefined, 'stop');
      res.end('data: [DONE]\n\n');
      return;
    }
    for (const word of words) chunk(res, word);
    chunk(res, undefined, 'stop');
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    request: (index) => arrival(index).promise,
    release() {
      gate.resolve();
      gate = deferred();
    },
    async close() {
      gate.resolve();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
