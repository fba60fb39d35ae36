/**
 * Replicas on one PostgreSQL database (issue #31): SendMessage `echo hi` throughput with one
 * `tandem serve` replica and with two on the same schema, the load split evenly over them, with
 * the database backends' CPU per request and each replica's CPU. Rounds alternate 1, 2, 2, 1...
 * What it shows on a small machine is the database's cost per request, which docs/deploy.md
 * turns into how many replicas one PostgreSQL serves; the replicas, the database and the load
 * generator share its cores, so the rate with two replicas is not a scaling result there.
 *
 * Usage: node bench/replicas.mjs [--seconds 10] [--rounds 2] [--connections 16]
 * (build first; PostgreSQL at TANDEM_TEST_POSTGRES_URL, in database tandem_bench).
 */

import { parseArgs } from 'node:util';
import { isCompleted, runLoad } from './lib/load.mjs';
import { messageBodies } from './lib/json-rpc.mjs';
import {
  backendCpuBetween,
  benchDatabaseUrl,
  databaseSnapshot,
  dropBenchSchema,
  ensureBenchDatabase,
} from './lib/pg-sampler.mjs';
import { cpuSeconds } from './lib/proc-sampler.mjs';
import { startTarget, TANDEM_MAIN } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    warmup: { type: 'string', default: '2' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);

/** A `tandem serve` replica on `schema` of the bench database. */
function replicaTarget(schema, name) {
  const url = new URL(benchDatabaseUrl());
  url.searchParams.set('schema', schema);
  return {
    id: `replica-${name}`,
    label: `replica ${name}`,
    command: (port) => ({
      args: [
        TANDEM_MAIN,
        ...['serve', '--agent', 'echo', '--store', url.toString()],
        ...['--host', '127.0.0.1', '--port', String(port), '--log-level', 'silent'],
      ],
      env: { TANDEM_LIMITS: 'off' },
    }),
  };
}

async function measure(replicaCount, round) {
  const schema = `tandem_bench_replicas_${process.pid}_${round}_${replicaCount}`;
  const servers = [];
  try {
    for (let i = 0; i < replicaCount; i++) {
      servers.push(await startTarget(replicaTarget(schema, String.fromCharCode(65 + i))));
    }
    const load = (window) =>
      Promise.all(
        servers.map((server) =>
          runLoad({
            url: server.rpcUrl,
            connections: Math.max(1, Math.round(connections / replicaCount)),
            seconds: window,
            nextBody: messageBodies('SendMessage', 'echo hi'),
            verify: isCompleted,
          }),
        ),
      );
    await load(Number(values.warmup));
    const db0 = databaseSnapshot();
    const cpu0 = servers.map((server) => cpuSeconds(server.pid));
    const results = await load(seconds);
    const db1 = databaseSnapshot();
    const requests = results.reduce((total, r) => total + r.requests, 0);
    const wall = Math.max(...results.map((r) => r.seconds));
    return {
      replicas: replicaCount,
      rps: requests / wall,
      failures: results.reduce((total, r) => total + r.failures, 0),
      dbCpuMsPerRequest: (backendCpuBetween(db0, db1) * 1000) / requests,
      dbCpuPct: (backendCpuBetween(db0, db1) / wall) * 100,
      replicaCpuMsPerRequest:
        (servers.reduce((total, server, i) => total + cpuSeconds(server.pid) - (cpu0[i] ?? 0), 0) *
          1000) /
        requests,
    };
  } finally {
    for (const server of servers) await server.stop();
    dropBenchSchema(schema);
  }
}

ensureBenchDatabase();
const rows = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? [1, 2] : [2, 1];
  for (const count of order) {
    process.stderr.write(`round ${round + 1}: ${count} replica(s)\n`);
    rows.push({ round: round + 1, ...(await measure(count, round)) });
  }
}
const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
process.stdout.write(
  [
    `# Replicas on one PostgreSQL: SendMessage \`echo hi\`, ${connections} connections in all, ${seconds} s`,
    '',
    '| round | replicas | req/s | DB backends CPU ms/req | DB backends CPU % | replicas CPU ms/req | failures |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.round} | ${r.replicas} | ${fixed(r.rps, 0)} | ${fixed(r.dbCpuMsPerRequest, 3)} | ${fixed(r.dbCpuPct, 0)} | ${fixed(r.replicaCpuMsPerRequest, 3)} | ${r.failures} |`,
    ),
    '',
  ].join('\n'),
);
