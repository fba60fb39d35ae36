#!/usr/bin/env node
/**
 * Bytes a Tandem server allocates, and promotes to V8's old generation, per SendMessage: the
 * benchmark's `tandem` target (`tandem serve --agent echo --store memory`, limits off) runs with
 * `--trace-gc --trace-gc-nvp`, takes `--warmup` calls, then `--calls` more, and the GC lines printed during
 * the measured calls are summed. Deterministic enough to compare two builds where a throughput
 * run is too noisy: promoted bytes are what RSS keeps until a mark-compact (scenario e), and
 * allocation is GC work on every request. Build Tandem first (npm run build); with
 * `TANDEM_BENCH_DIST=<copy of another build's dist>` it measures that build.
 *
 * Usage: node bench/gc-per-request.mjs [--calls 30000] [--warmup 5000] [--runs 2]
 */

import { parseArgs } from 'node:util';
import { fillTasks } from './scenarios/request-load.mjs';
import { TANDEM_MAIN, TARGETS, startTarget } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '30000' },
    warmup: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '2' },
  },
});
const calls = Number(values.calls);
const warmup = Number(values.warmup);

async function measure() {
  let trace = '';
  const server = await startTarget(TARGETS.tandem, {
    nodeFlags: ['--trace-gc', '--trace-gc-nvp'],
    onOutput: (text) => (trace += text),
  });
  try {
    await fillTasks(server.rpcUrl, warmup, 8);
    const from = trace.length;
    const failures = await fillTasks(server.rpcUrl, calls, 8);
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
    await server.stop();
  }
}

console.log(`${TANDEM_MAIN}: ${calls} SendMessage calls after ${warmup}`);
for (let run = 1; run <= Number(values.runs); run++) {
  const { gcs, allocated, promoted } = await measure();
  console.log(
    `run ${run}: ${gcs} GCs, ${Math.round(allocated)} bytes allocated and ${Math.round(promoted)} promoted per request`,
  );
}
