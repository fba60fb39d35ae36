/**
 * The server the CLI tests talk to: the dice and echo demo agents plus `kit` (and `plain`, its
 * non-streaming twin), a small agent that
 * answers in every shape the CLI renders (data and file parts, a direct message, failures, auth),
 * each mounted at `/agents/<name>` on one loopback port. Also a bare HTTP server that serves an
 * invalid card and records the headers it receives.
 */

import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dice } from '../../src/agents/dice.js';
import { echo } from '../../src/agents/echo.js';
import {
  dataPart,
  fileBytesPart,
  fileUrlPart,
  textPart,
  userMessage,
  type Task,
} from '../../src/index.js';
import { decodeBase64 } from '../../src/codecs.js';
import {
  createCallContext,
  createNodeServer,
  createRequestHandler,
  defineAgent,
  type A2ARequestHandler,
} from '../../src/server.js';

const gates = new Map<string, { promise: Promise<void>; open: () => void }>();

function gate(name: string): { promise: Promise<void>; open: () => void } {
  let entry = gates.get(name);
  if (entry === undefined) {
    let open = (): void => undefined;
    const promise = new Promise<void>((resolve) => (open = resolve));
    entry = { promise, open };
    gates.set(name, entry);
  }
  return entry;
}

/** Lets the `kit` task waiting at gate `name` go on (before or after it got there). */
export function openGate(name: string): void {
  gate(name).open();
}

/**
 * Commands: `gate <name>` (streams "before", waits until the test calls {@link openGate} or the
 * task is canceled, then "after"), `report` (an artifact with text, data and two files, then a status message), `fail`,
 * `hello` (a direct message), `files` (describes the file parts received), `auth`, `chunks`
 * (streams "Hel" + "lo" with a progress message).
 */
export const kitAgent = defineAgent({
  card: {
    name: 'Kit',
    description: 'Answers in every shape the CLI renders',
    version: '2.1.0',
    defaultInputModes: ['text/plain', '*/*'],
    provider: { organization: 'Tandem tests', url: 'https://example.com' },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } },
    },
    securityRequirements: [{ schemes: { bearer: { list: ['read'] } } }, { schemes: { key: {} } }],
    skills: [
      {
        id: 'report',
        name: 'Report',
        description: 'Writes a report',
        tags: ['test', 'report'],
        examples: ['report'],
      },
    ],
  },
  async execute(ctx) {
    switch (ctx.text.trim().split(/\s+/)[0]) {
      case 'report':
        await ctx.artifact(
          [
            textPart('Summary: all good'),
            dataPart({ score: 42, tags: ['a', 'b'] }),
            fileUrlPart('https://example.com/r.pdf', {
              mediaType: 'application/pdf',
              filename: 'r.pdf',
            }),
            fileBytesPart(new TextEncoder().encode('hello'), {
              mediaType: 'text/plain',
              filename: 'hello.txt',
            }),
          ],
          { name: 'report' },
        );
        return ctx.complete('Report finished');
      case 'fail':
        return ctx.fail('The oven caught fire');
      case 'hello':
        return ctx.reply('Hi there!');
      case 'files': {
        const files = ctx.message.parts.flatMap((part) =>
          part.raw === undefined
            ? []
            : [`got ${part.filename} ${part.mediaType} ${decodeBase64(part.raw).length} bytes`],
        );
        await ctx.artifact(files.join('\n') || 'no files');
        return ctx.complete();
      }
      case 'auth':
        return ctx.authRequired('Please sign in first');
      case 'gate': {
        await ctx.working();
        const id = await ctx.artifact('before', { lastChunk: false });
        const canceled = new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve()),
        );
        await Promise.race([gate(ctx.text.split(/\s+/)[1] ?? '').promise, canceled]);
        if (ctx.signal.aborted) return;
        await ctx.append(id, 'after', { lastChunk: true });
        return ctx.complete();
      }
      case 'chunks': {
        await ctx.working('warming up');
        const id = await ctx.artifact('Hel', { lastChunk: false });
        await ctx.append(id, 'lo', { lastChunk: true });
        return ctx.complete();
      }
      default:
        return ctx.reject('Unknown command');
    }
  },
});

/**
 * What the CLI warns before calling `kit`, whose card requires a bearer token or an API key
 * (though nothing enforces it) when the command line gives neither.
 */
export function kitCredentialWarning(command: string): string {
  return (
    `tandem ${command}: warning: the agent's card requires a bearer token or an API key and ` +
    'none was given; pass --token-file PATH or set TANDEM_TOKEN; or --api-key-file PATH or set ' +
    'TANDEM_API_KEY\n'
  );
}

/** The same answers from an agent that does not stream (`capabilities.streaming: false`). */
export const plainAgent = defineAgent({
  ...kitAgent,
  card: { ...kitAgent.card, name: 'Plain', capabilities: { streaming: false } },
});

/** The agents of the test server, each at `/agents/<name>`. */
export type AgentName = 'dice' | 'echo' | 'kit' | 'plain';

/** The running agents. */
export interface CliTestServer {
  /** The base URL of an agent. */
  urlOf(name: AgentName): string;
  /** Reads a task on the server side, bypassing the CLI. */
  getTask(name: AgentName, id: string): Promise<Task>;
  /** Every task of an agent, newest first. */
  listTasks(name: AgentName): Promise<Task[]>;
  /** Sends a message on the server side; `wait: false` returns the task at once. */
  send(name: AgentName, text: string, options?: { wait?: boolean }): Promise<Task>;
  close(): Promise<void>;
}

/** Starts dice, echo and kit on one loopback port. */
export async function startCliServer(): Promise<CliTestServer> {
  const handlers: Record<AgentName, A2ARequestHandler> = {
    dice: createRequestHandler({ agent: dice }),
    echo: createRequestHandler({ agent: echo }),
    kit: createRequestHandler({ agent: kitAgent }),
    plain: createRequestHandler({ agent: plainAgent }),
  };
  const server = createNodeServer({
    agents: Object.entries(handlers).map(([name, handler]) => ({
      path: `/agents/${name}`,
      handler,
    })),
  });
  const { url } = await server.listen({ port: 0, host: '127.0.0.1' });
  const base = url.replace(/\/+$/, '');
  const call = createCallContext();
  return {
    urlOf: (name) => `${base}/agents/${name}`,
    getTask: (name, id) => handlers[name].getTask(call, { id }),
    listTasks: async (name) => (await handlers[name].listTasks(call, { pageSize: 100 })).tasks,
    send: async (name, text, options = {}) => {
      const response = await handlers[name].sendMessage(call, {
        message: userMessage(text),
        configuration: { returnImmediately: options.wait === false },
      });
      if (response.task === undefined) throw new Error(`${name} answered "${text}" with a message`);
      return response.task;
    },
    close: () => server.shutdown({ deadlineMs: 1_000 }),
  };
}

/**
 * A server that answers every request with `cardOf(its URL)` as JSON and remembers the headers of
 * each request: an invalid card, or a valid one whose JSON-RPC endpoint answers nonsense.
 */
export async function startCardServer(cardOf: (url: string) => unknown): Promise<{
  url: string;
  requests: IncomingHttpHeaders[];
  close(): Promise<void>;
}> {
  const requests: IncomingHttpHeaders[] = [];
  let url = '';
  const server = createServer((req, res) => {
    requests.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(cardOf(url)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The URL of a loopback port nothing listens on (it was free a moment ago). */
export async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
