#!/usr/bin/env node
/**
 * Bytes a Tandem server allocates, and promotes to V8's old generation, per SendMessage: the
 * server (`tandem serve --agent echo --store memory`, limits off) runs with `--trace-gc
 * --trace-gc-nvp`, takes `--warmup` calls, then `--calls` more, and the GC lines printed during
 * the measured calls are summed. Deterministic enough to compare two builds where a throughput
 * run is too noisy: promoted bytes are what RSS keeps until a mark-compact (scenario e), and
 * allocation is GC work on every request. Build Tandem first (npm run build); with
 * `TANDEM_BENCH_DIST=<copy of another build's dist>` it measures that build.
 *
 * Usage: node bench/gc-per-request.mjs [--calls 30000] [--warmup 5000] [--runs 2]
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { fillTasks } from './scenarios/request-load.mjs';
import { TANDEM_MAIN } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '30000' },
    warmup: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '2' },
  },
});
const calls = Number(values.calls);
const warmup = Number(values.warmup);

/** A free loopback port (bound and closed again). */
async function freePort() {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  probe.close();
  await once(probe, 'close');
  return port;
}

/** The JSON-RPC URL the card lists, once the server answers. */
async function jsonRpcUrl(port, child) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`tandem serve exited (${child.exitCode})`);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`);
      const card = await answer.json();
      return card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC').url;
    } catch {
      // Not listening yet: the card is the readiness signal, as in bench/run.mjs.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

async function measure() {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '--trace-gc',
      '--trace-gc-nvp',
      TANDEM_MAIN,
      'serve',
      '--agent',
      'echo',
      '--store',
      'memory',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--log-level',
      'silent',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TANDEM_LIMITS: 'off' } },
  );
  let trace = '';
  child.stdout.setEncoding('utf8').on('data', (text) => (trace += text));
  try {
    const url = await jsonRpcUrl(port, child);
    await fillTasks(url, warmup, 8);
    const from = trace.length;
    const failures = await fillTasks(url, calls, 8);
    if (failures > 0) throw new Error(`${failures} of ${calls} calls failed`);
    const measured = trace.slice(from);
    const sum = (field) =>
      [...measured.matchAll(new RegExp(`${field}=(\\d+)`, 'g'))].reduce(
        (total, match) => total + Number(match[1]),
        0,
      );
    return {
      gcs: [...measured.matchAll(/ gc=/g)].length,
      allocated: sum('allocated') / calls,
      promoted: sum('promoted') / calls,
    };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

console.log(`${TANDEM_MAIN}: ${calls} SendMessage calls after ${warmup}`);
for (let run = 1; run <= Number(values.runs); run++) {
  const { gcs, allocated, promoted } = await measure();
  console.log(
    `run ${run}: ${gcs} GCs, ${Math.round(allocated)} bytes allocated and ${Math.round(promoted)} promoted per request`,
  );
}
