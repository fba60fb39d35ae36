/**
 * `tandem serve` on a port that is taken, as a child process: whatever it started before the
 * failed listen is stopped (the gRPC port is free again), it prints one line naming the port and
 * the flag and environment variable that set it, without grpc-js's own log line, and it exits 3.
 */

import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, ensureBuilt } from './cli-harness.js';

/** A loopback port held by the test, so that the server cannot listen on it. */
let taken: Server;
let takenPort: number;

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A loopback port free a moment ago. */
async function freePort(): Promise<number> {
  const server = await listenOn(0);
  const { port } = server.address() as { port: number };
  await close(server);
  return port;
}

/** Whether the process `pid` still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  await ensureBuilt();
  taken = await listenOn(0);
  takenPort = (taken.address() as { port: number }).port;
});

afterAll(() => close(taken));

/** Runs `tandem serve` to its end, bounded: a server that never exits fails the test. */
async function serveUntilExit(args: readonly string[], env?: Record<string, string>) {
  const child = new CliProcess(['serve', '--store', 'memory', '--agent', 'echo', ...args], env);
  child.end();
  const timeout = new Promise<'still running'>((resolve) =>
    setTimeout(() => resolve('still running'), 15_000).unref(),
  );
  const code = await Promise.race([child.exited, timeout]);
  if (code === 'still running') {
    child.signal('SIGKILL');
    throw new Error(`tandem serve did not exit\nstdout: ${child.stdout}\nstderr: ${child.stderr}`);
  }
  return { code, child };
}

describe('tandem serve on a taken port', () => {
  it('a taken HTTP port: one line naming --port / PORT, exit 3', async () => {
    const { code, child } = await serveUntilExit(['--port', String(takenPort)]);
    expect(code).toBe(3);
    expect(child.stderr.trim()).toBe(
      `tandem serve: cannot listen on 127.0.0.1:${takenPort} (set by --port / PORT): the port is already in use`,
    );
    expect(child.stdout).not.toContain('Tandem is serving');
  });

  it('a taken HTTP port from PORT: the same line', async () => {
    const { code, child } = await serveUntilExit([], { PORT: String(takenPort) });
    expect(code).toBe(3);
    expect(child.stderr).toContain('(set by --port / PORT)');
  });

  it('a taken HTTP port with --grpc-port: the gRPC listener is stopped, the process gone', async () => {
    const grpcPort = await freePort();
    const { code, child } = await serveUntilExit([
      '--port',
      String(takenPort),
      '--grpc-port',
      String(grpcPort),
    ]);
    expect(code).toBe(3);
    expect(child.stderr.trim()).toBe(
      `tandem serve: cannot listen on 127.0.0.1:${takenPort} (set by --port / PORT): the port is already in use`,
    );
    expect(alive(child.pid)).toBe(false);
    // The gRPC port it had bound is free again: nothing kept it.
    await close(await listenOn(grpcPort));
  });

  it('a taken gRPC port: names --grpc-port / TANDEM_GRPC_PORT, without grpc-js own line', async () => {
    const { code, child } = await serveUntilExit(['--port', '0', '--grpc-port', String(takenPort)]);
    expect(code).toBe(3);
    expect(child.stderr.trim()).toBe(
      `tandem serve: cannot listen on 127.0.0.1:${takenPort} (set by --grpc-port / TANDEM_GRPC_PORT): the port is already in use`,
    );
    expect(child.stderr + child.stdout).not.toContain('No address added');
    expect(alive(child.pid)).toBe(false);
  });
});
