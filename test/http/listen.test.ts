import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeServer, type A2ANodeServer } from '../../src/server.js';
import { handlerFor } from './support.js';

/** The accept queue the kernel reports for a listening port (`ss` shows it as Send-Q). */
function acceptQueueOf(port: number): number | undefined {
  try {
    const line = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim();
    const sendQ = line.split(/\s+/)[2];
    return sendQ === undefined ? undefined : Number(sendQ);
  } catch {
    return undefined;
  }
}

function hasSs(): boolean {
  try {
    execFileSync('ss', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const ssAvailable = hasSs();
if (!ssAvailable)
  console.warn('listen.test: `ss` (iproute2) is not installed; accept queue checks skipped');

describe('listen', () => {
  let server: A2ANodeServer | undefined;
  afterEach(async () => {
    await server?.shutdown({ deadlineMs: 100 });
    server = undefined;
  });

  it.runIf(ssAvailable)(
    'asks for a deep accept queue by default, for bursts of connections',
    async () => {
      server = createNodeServer({ agents: [{ path: '', handler: handlerFor() }] });
      const { port } = await server.listen();
      expect(acceptQueueOf(port)).toBeGreaterThan(511);
    },
  );

  it.runIf(ssAvailable)('takes the accept queue length from `backlog`', async () => {
    server = createNodeServer({ agents: [{ path: '', handler: handlerFor() }] });
    const { port } = await server.listen({ backlog: 100 });
    expect(acceptQueueOf(port)).toBe(100);
  });
});
