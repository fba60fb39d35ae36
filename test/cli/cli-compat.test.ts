/**
 * A2A 0.3 from the command line, with real processes: `tandem serve --compat 0.3` answers the
 * official 0.3 SDK client (JSON-RPC, and gRPC with `--grpc-port`) and serves the legacy card path (and refuses an unknown `--compat`),
 * and the client commands (`card`, `send`, `stream`, `get`) work against a server that speaks
 * only 0.3 (the official SDK's; over gRPC too, for a card that lists only its gRPC interface),
 * unchanged.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from 'a2a-sdk-v03/client';
import { GrpcTransport } from 'a2a-sdk-v03/client/grpc';
import { CliProcess, ensureBuilt, runCli } from './cli-harness.js';
import { startSdkV03Server, type SdkV03Server } from '../bindings/v0_3/sdk-v03-server.js';

let sdkServer: SdkV03Server;

beforeAll(async () => {
  await ensureBuilt();
  sdkServer = await startSdkV03Server({ grpc: true });
});

afterAll(() => sdkServer.close());

describe('tandem serve --compat 0.3', () => {
  it('serves gRPC 0.3 beside 1.0 when it serves gRPC, listed in the card', async () => {
    const serve = new CliProcess([
      'serve',
      '--compat',
      '0.3',
      '--port',
      '0',
      '--grpc-port',
      '0',
      '--store',
      'memory',
      '--agent',
      'echo',
      '--log-level',
      'silent',
    ]);
    try {
      // Not a terminal: the banner is on stderr, stdout is for JSON log lines.
      await serve.waitFor(/Tandem is serving .* at (http:\/\/\S+)/, { stream: 'stderr' });
      const url = /Tandem is serving .* at (http:\/\/\S+)/.exec(serve.stderr)?.[1] as string;
      const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
        additionalInterfaces: { url: string; transport: string }[];
      };
      const grpc = card.additionalInterfaces.find((i) => i.transport === 'GRPC');
      expect(grpc).toBeDefined();
      const sdk = new GrpcTransport({ endpoint: grpc?.url ?? '' });
      const result = await sdk.sendMessage({
        message: {
          kind: 'message',
          role: 'user',
          messageId: crypto.randomUUID(),
          parts: [{ kind: 'text', text: 'hello' }],
        },
      });
      expect(['task', 'message']).toContain(result.kind);
    } finally {
      serve.signal('SIGTERM');
      await serve.exited;
    }
  });

  it('serves the official 0.3 client and the legacy card path', async () => {
    const serve = new CliProcess([
      'serve',
      '--compat',
      '0.3',
      '--port',
      '0',
      '--store',
      'memory',
      '--agent',
      'echo',
      '--log-level',
      'silent',
    ]);
    try {
      // Not a terminal: the banner is on stderr, stdout is for JSON log lines.
      await serve.waitFor(/Tandem is serving .* at (http:\/\/\S+)/, { stream: 'stderr' });
      const url = /Tandem is serving .* at (http:\/\/\S+)/.exec(serve.stderr)?.[1] as string;
      const legacy = (await (await fetch(`${url}/.well-known/agent.json`)).json()) as {
        protocolVersion: string;
        url: string;
      };
      expect(legacy.protocolVersion).toBe('0.3.0');
      const sdk = await A2AClient.fromCardUrl(`${url}/.well-known/agent.json`);
      const response = (await sdk.sendMessage({
        message: {
          kind: 'message',
          role: 'user',
          messageId: crypto.randomUUID(),
          parts: [{ kind: 'text', text: 'hello' }],
        },
      })) as { result?: { kind: string } };
      expect(['task', 'message']).toContain(response.result?.kind);
    } finally {
      serve.signal('SIGTERM');
      await serve.exited;
    }
  });

  it('refuses a version it cannot serve', async () => {
    const { code, stderr } = await runCli(['serve', '--compat', '0.2', '--store', 'memory']);
    expect(code).toBe(2);
    expect(stderr).toContain('--compat must be one of 0.3');
    const env = await runCli(['serve', '--store', 'memory'], { env: { TANDEM_COMPAT: 'x' } });
    expect(env.code).toBe(2);
  });
});

describe.concurrent('client commands against a 0.3 agent', () => {
  it('card shows the card read as 1.0, with its 0.3 interface', async () => {
    const { code, stdout } = await runCli(['card', sdkServer.url, '--json']);
    expect(code).toBe(0);
    const card = JSON.parse(stdout) as { supportedInterfaces: { protocolVersion: string }[] };
    expect(card.supportedInterfaces[0]?.protocolVersion).toBe('0.3');
  });

  it('send prints the answer, and get finds the task', async () => {
    const sent = await runCli(['send', sdkServer.url, 'chunks', '--json']);
    expect(sent.code).toBe(0);
    const printed = JSON.parse(sent.stdout) as { task?: unknown };
    const task = (printed.task ?? printed) as { id: string; status: { state: string } };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const got = await runCli(['get', sdkServer.url, task.id, '--json']);
    expect(got.code).toBe(0);
    expect((JSON.parse(got.stdout) as { id: string }).id).toBe(task.id);
    const reply = await runCli(['send', sdkServer.url, 'reply', 'bonjour']);
    expect(reply.code).toBe(0);
    expect(reply.stdout).toContain('bonjour');
  });

  it('send and stream go over gRPC 0.3 when that is all the card offers', async () => {
    const agent = `${sdkServer.url}/grpc-only`;
    const sent = await runCli(['send', agent, 'chunks', '--json']);
    expect(sent.code).toBe(0);
    const printed = JSON.parse(sent.stdout) as { task?: unknown };
    const task = (printed.task ?? printed) as { status: { state: string } };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const streamed = await runCli(['stream', agent, 'go', '--json']);
    expect(streamed.code).toBe(0);
    const last = streamed.stdout.trim().split('\n').at(-1) ?? '{}';
    expect(Object.keys(JSON.parse(last) as object)[0]).toBe('statusUpdate');
  });

  it('stream prints one 1.0 event per line', async () => {
    const { code, stdout } = await runCli(['stream', sdkServer.url, 'go', '--json']);
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => Object.keys(JSON.parse(line) as object)[0]);
    expect(events[0]).toBe('task');
    expect(events.at(-1)).toBe('statusUpdate');
  });
});
