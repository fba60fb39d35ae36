/**
 * The CLI over gRPC, as child processes: `tandem serve --grpc-port 0` serves the binding and its
 * cards list it; `--binding grpc` makes the client commands use it (send, stream, get, tasks,
 * cancel), errors exit as over the other bindings, and with several agents the tenant of each
 * one's GRPC interface routes its calls on the shared port. `--preferred-binding` puts a binding
 * first in every card, and refuses one that is unknown or not served.
 */

import { beforeAll, expect, it } from 'vitest';
import type { AgentCard } from '../../src/index.js';
import { CLI, SERVE_URL_LINE, requireBuild, serverProcesses } from '../support/processes.js';
import { runCli } from './cli-harness.js';

const processes = serverProcesses();

beforeAll(requireBuild);

async function card(url: string): Promise<AgentCard> {
  return (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as AgentCard;
}

it('serves gRPC with --grpc-port and every client command speaks it with --binding grpc', async () => {
  const { process: serve, url } = await processes.start(
    [CLI, 'serve', '--agent', 'echo', '--store', 'memory', '--port', '0', '--grpc-port', '0'],
    SERVE_URL_LINE,
  );
  const line = await serve.line(/^ {2}gRPC +(\S+)$/, 5_000);
  const grpc = (await card(url)).supportedInterfaces.find((i) => i.protocolBinding === 'GRPC');
  expect(grpc).toEqual({ url: line[1], protocolBinding: 'GRPC', protocolVersion: '1.0' });
  expect(grpc?.url).toMatch(/^127\.0\.0\.1:\d+$/);

  const sent = await runCli(['send', url, 'echo', 'hello over grpc', '--binding', 'grpc']);
  expect(sent).toMatchObject({ code: 0, stdout: 'hello over grpc\n' });

  const streamed = await runCli(['stream', url, 'stream', '3', '4', '--binding', 'grpc']);
  expect(streamed.code).toBe(0);
  expect(streamed.stdout).toContain('xxxxxxxxxxxx');
  expect(streamed.stdout).toContain('completed');

  const listed = await runCli(['tasks', url, '--binding', 'grpc', '--json']);
  expect(listed.code).toBe(0);
  expect((JSON.parse(listed.stdout) as { tasks: unknown[] }).tasks).toHaveLength(2);

  const missing = await runCli(['get', url, crypto.randomUUID(), '--binding', 'grpc']);
  expect(missing.code).toBe(3);
  expect(missing.stderr).toContain('TaskNotFoundError');
});

it('routes several agents on one gRPC port by the tenant of their interfaces', async () => {
  const { url } = await processes.start(
    [
      ...[CLI, 'serve', '--agent', 'echo', '--agent', 'dice', '--store', 'memory'],
      ...['--port', '0', '--grpc-port', '0'],
    ],
    SERVE_URL_LINE,
  );
  const echo = (await card(`${url}/agents/echo`)).supportedInterfaces.find(
    (i) => i.protocolBinding === 'GRPC',
  );
  expect(echo?.tenant).toBe('agents/echo');
  const sent = await runCli(['send', `${url}/agents/echo`, 'echo', 'routed', '--binding', 'grpc']);
  expect(sent).toMatchObject({ code: 0, stdout: 'routed\n' });
  const dice = await runCli(['send', `${url}/agents/dice`, '2d6', '--binding', 'grpc']);
  expect(dice.code).toBe(0);
  expect(dice.stdout).not.toContain('routed');
});

it('lists the binding of --preferred-binding first in every card', async () => {
  const { url } = await processes.start(
    [
      ...[CLI, 'serve', '--agent', 'echo', '--agent', 'dice', '--store', 'memory'],
      ...['--port', '0', '--grpc-port', '0', '--preferred-binding', 'grpc'],
    ],
    SERVE_URL_LINE,
  );
  for (const path of ['', '/agents/echo', '/agents/dice']) {
    const bindings = (await card(`${url}${path}`)).supportedInterfaces.map(
      (i) => i.protocolBinding,
    );
    expect(bindings).toEqual(['GRPC', 'JSONRPC', 'HTTP+JSON']);
  }
});

it('refuses a --preferred-binding that is no binding, or is not served', async () => {
  const serve = ['serve', '--store', 'memory', '--port', '0'];
  const unknown = await runCli([...serve, '--preferred-binding', 'soap']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain(
    '--preferred-binding must be one of JSONRPC, HTTP+JSON, GRPC, got "soap"',
  );
  const noGrpc = await runCli(serve, { env: { TANDEM_PREFERRED_BINDING: 'GRPC' } });
  expect(noGrpc.code).toBe(2);
  expect(noGrpc.stderr).toContain('--preferred-binding GRPC needs gRPC to be served');
});
