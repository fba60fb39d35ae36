/**
 * Streaming scenarios, driven by the harness's own SSE client:
 * c. `stream <n> 64` with a fixed number of streams in flight, at several stream lengths, so that
 *    the cost per chunk at 10 and at 400 chunks shows whether it grows with the stream's length;
 * d. many concurrent `slowstream` requests held open at once: do all complete, how long until
 *    each gets its first event, and how much memory does an open stream cost the server.
 */

import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { messageBodies } from '../lib/json-rpc.mjs';
import { rssBytes } from '../lib/proc-sampler.mjs';
import { perUnit } from '../lib/pg-sampler.mjs';
import { openStream } from '../lib/sse-client.mjs';
import { Samples } from '../lib/stats.mjs';

/**
 * `inFlight` workers, each opening its next stream as soon as the previous one ended, until
 * `seconds` have passed; streams already open then run to their end, and the run's length is
 * measured to the last one, so that every chunk counted lies inside the measured time.
 */
async function streamLoop({ rpcUrl, command, chunks, inFlight, seconds }) {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const nextBody = messageBodies('SendStreamingMessage', command);
  const firstEvent = new Samples();
  const lastEvent = new Samples();
  let chunkCount = 0;
  let streams = 0;
  let failures = 0;
  let firstError;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const outcome = await openStream(rpcUrl, nextBody(), { agent });
      streams++;
      chunkCount += outcome.artifactEvents;
      if (!outcome.ok || outcome.artifactEvents !== chunks) {
        failures++;
        firstError ??= outcome.error ?? `${outcome.artifactEvents} chunks, expected ${chunks}`;
        continue;
      }
      firstEvent.add(outcome.firstEventMs);
      lastEvent.add(outcome.lastEventMs);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  const [ttfeP50Ms, ttfeP99Ms] = firstEvent.quantiles(0.5, 0.99);
  const [ttleP50Ms, ttleP99Ms] = lastEvent.quantiles(0.5, 0.99);
  return {
    chunksPerSec: chunkCount / elapsed,
    streamsPerSec: streams / elapsed,
    chunks: chunkCount,
    ttfeP50Ms,
    ttfeP99Ms,
    ttleP50Ms,
    ttleP99Ms,
    failures,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/** The columns of a streaming scenario (c, and its gRPC row). */
export const STREAM_COLUMNS = Object.freeze([
  { metric: 'chunksPerSec', label: 'chunks/s', format: 'int' },
  { metric: 'cpuUsPerChunk', label: 'server CPU µs/chunk', format: 'dec1' },
  { metric: 'ttfeP50Ms', label: 'first event p50 ms', format: 'ms' },
  { metric: 'ttleP50Ms', label: 'last event p50 ms', format: 'ms' },
  { metric: 'ttleP99Ms', label: 'last event p99 ms', format: 'ms' },
  { metric: 'dbCpuUsPerChunk', label: 'DB CPU µs/chunk', format: 'dec1' },
  { metric: 'commitsPerChunk', label: 'DB commits/chunk', format: 'ms' },
  { metric: 'writeStatementsPerChunk', label: 'write statements/chunk', format: 'ms' },
]);

/** Scenario c at one stream length. */
export function streamScenario(chunks) {
  return {
    id: `c${chunks}`,
    title: (c) =>
      `c. SendStreamingMessage \`stream ${chunks} ${c.chunkBytes}\`, ${c.streamsInFlight} in flight, ${c.seconds} s`,
    appliesTo: ['floor', 'a2a-js', 'tandem', 'tandem-sqlite', 'floor-postgres', 'tandem-postgres'],
    key: { metric: 'chunksPerSec', label: 'chunks/s' },
    columns: STREAM_COLUMNS,
    async measure(ctx) {
      const load = {
        rpcUrl: ctx.server.rpcUrl,
        command: `stream ${chunks} ${ctx.config.chunkBytes}`,
        chunks,
        inFlight: ctx.config.streamsInFlight,
      };
      if (ctx.config.warmupSeconds > 0)
        await streamLoop({ ...load, seconds: ctx.config.warmupSeconds });
      ctx.sampler.start();
      const result = await streamLoop({ ...load, seconds: ctx.config.seconds });
      const usage = ctx.sampler.stop();
      const db = perUnit(usage.db, result.chunks);
      return {
        ...result,
        ...usage,
        cpuUsPerChunk: (usage.serverCpuSeconds * 1e6) / result.chunks,
        ...(db.dbCpuMsPerUnit === undefined
          ? {}
          : {
              dbCpuUsPerChunk: db.dbCpuMsPerUnit * 1000,
              commitsPerChunk: db.commitsPerUnit,
              writeStatementsPerChunk: db.writeStatementsPerUnit,
            }),
      };
    },
  };
}

export const manyStreams = {
  id: 'd',
  title: (c) =>
    `d. ${c.manyStreams.toLocaleString('en')} concurrent \`slowstream ${c.slowChunks} ${c.slowDelayMs}\``,
  appliesTo: ['floor', 'a2a-js', 'tandem', 'tandem-postgres'],
  key: { metric: 'ttfeP99Ms', label: 'first event p99' },
  columns: [
    { metric: 'completed', label: 'completed', format: 'int' },
    { metric: 'ttfeP50Ms', label: 'first event p50 ms', format: 'ms' },
    { metric: 'ttfeP99Ms', label: 'first event p99 ms', format: 'ms' },
    { metric: 'ttleP99Ms', label: 'last event p99 ms', format: 'ms' },
    { metric: 'rssPerStreamKiB', label: 'RSS/open stream KiB', format: 'dec1' },
  ],
  async measure(ctx) {
    const { manyStreams: count, slowChunks, slowDelayMs, settleMs } = ctx.config;
    const { rpcUrl } = ctx.server;
    // Warm up the streaming path (JIT, lazily loaded modules) so that the baseline already
    // holds everything that is paid once, not per stream.
    const warmBodies = messageBodies('SendStreamingMessage', 'slowstream 2 10');
    await Promise.all(Array.from({ length: 20 }, () => openStream(rpcUrl, warmBodies())));
    await sleep(settleMs);
    const baseline = rssBytes(ctx.server.pid);

    const nextBody = messageBodies(
      'SendStreamingMessage',
      `slowstream ${slowChunks} ${slowDelayMs}`,
    );
    const timeoutMs = slowChunks * slowDelayMs * 3 + 30_000;
    ctx.sampler.start();
    const openedAt = ctx.sampler.elapsedMs();
    // One connection per stream (agent: false), all requested at once.
    const outcomes = await Promise.all(
      Array.from({ length: count }, () =>
        openStream(rpcUrl, nextBody(), { agent: false, timeoutMs }),
      ),
    );
    const usage = ctx.sampler.stop();

    const completed = outcomes.filter((o) => o.ok && o.artifactEvents === slowChunks);
    const firstEvent = new Samples();
    const lastEvent = new Samples();
    for (const o of outcomes) {
      if (Number.isFinite(o.firstEventMs)) firstEvent.add(o.firstEventMs);
      if (o.ok) lastEvent.add(o.lastEventMs);
    }
    // RSS while every stream is open: between the last first-event and the first completion.
    const allOpen = openedAt + Math.max(...outcomes.map((o) => o.firstEventMs));
    const firstDone = openedAt + Math.min(...outcomes.map((o) => o.lastEventMs));
    const window = ctx.sampler.samples.filter((s) => s.atMs >= allOpen && s.atMs <= firstDone);
    const openRss = window.length > 0 ? Math.max(...window.map((s) => s.rss)) : usage.serverRssPeak;
    const [ttfeP50Ms, ttfeP99Ms] = firstEvent.quantiles(0.5, 0.99);
    const [ttleP99Ms] = lastEvent.quantiles(0.99);
    const failed = outcomes.find((o) => !o.ok);
    return {
      ...usage,
      streams: count,
      completed: completed.length,
      failures: count - completed.length,
      ...(failed === undefined ? {} : { firstError: failed.error }),
      ttfeP50Ms,
      ttfeP99Ms,
      ttleP99Ms,
      rssBaseline: baseline,
      rssOpen: openRss,
      rssWindowSamples: window.length,
      rssPerStreamKiB: (openRss - baseline) / count / 1024,
    };
  },
};
