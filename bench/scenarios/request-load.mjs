/**
 * Request/response scenarios, driven by autocannon on keep-alive connections:
 * a. SendMessage `echo hi` (each request a new task), b. GetTask of one existing task, and
 * ListTasks (Tandem only) over a store filled with completed tasks through the API.
 */

import { isCompleted, runLoad } from '../lib/load.mjs';
import { messageBodies, rpcBody, sendEcho } from '../lib/json-rpc.mjs';
import { perUnit } from '../lib/pg-sampler.mjs';

export const LATENCY_COLUMNS = [
  { metric: 'p50Ms', label: 'p50 ms', format: 'ms' },
  { metric: 'p99Ms', label: 'p99 ms', format: 'ms' },
];

/** Warm-up (discarded), then the measured run inside the sampler's window. */
export async function warmThenMeasure(ctx, load) {
  if (ctx.config.warmupSeconds > 0) await runLoad({ ...load, seconds: ctx.config.warmupSeconds });
  ctx.sampler.start();
  const result = await runLoad({ ...load, seconds: ctx.config.seconds });
  const usage = ctx.sampler.stop();
  // On a PostgreSQL target: the database's CPU, commits and statements per request.
  const db = perUnit(usage.db, result.requests);
  return {
    ...result,
    ...usage,
    ...(db.dbCpuMsPerUnit === undefined
      ? {}
      : {
          dbCpuMsPerRequest: db.dbCpuMsPerUnit,
          commitsPerRequest: db.commitsPerUnit,
          statementsPerRequest: db.statementsPerUnit,
          writeStatementsPerRequest: db.writeStatementsPerUnit,
        }),
  };
}

/** The database columns of a scenario whose targets include PostgreSQL ones. */
export const DATABASE_COLUMNS = [
  { metric: 'dbCpuMsPerRequest', label: 'DB CPU ms/req', format: 'ms' },
  { metric: 'commitsPerRequest', label: 'DB commits/req', format: 'ms' },
  { metric: 'statementsPerRequest', label: 'statements/req', format: 'ms' },
  { metric: 'writeStatementsPerRequest', label: 'write statements/req', format: 'ms' },
];

/** Fills the store with `count` completed `echo hi` tasks through SendMessage. */
export async function fillTasks(rpcUrl, count, connections) {
  if (count <= 0) return 0;
  const result = await runLoad({
    url: rpcUrl,
    connections,
    amount: count,
    nextBody: messageBodies('SendMessage', 'echo hi'),
    verify: isCompleted,
  });
  return result.failures;
}

export const sendMessage = {
  id: 'a',
  title: (c) => `a. SendMessage \`echo hi\`, ${c.connections} connections, ${c.seconds} s`,
  appliesTo: ['floor', 'a2a-js', 'tandem', 'tandem-sqlite', 'floor-postgres', 'tandem-postgres'],
  key: { metric: 'rps', label: 'req/s' },
  columns: [
    { metric: 'rps', label: 'req/s', format: 'int' },
    ...LATENCY_COLUMNS,
    ...DATABASE_COLUMNS,
  ],
  measure: (ctx) =>
    warmThenMeasure(ctx, {
      url: ctx.server.rpcUrl,
      connections: ctx.config.connections,
      nextBody: messageBodies('SendMessage', 'echo hi'),
      verify: isCompleted,
    }),
};

export const getTask = {
  id: 'b',
  title: (c) => `b. GetTask of an existing task, ${c.connections} connections, ${c.seconds} s`,
  appliesTo: ['floor', 'a2a-js', 'tandem'],
  key: { metric: 'rps', label: 'req/s' },
  columns: [{ metric: 'rps', label: 'req/s', format: 'int' }, ...LATENCY_COLUMNS],
  async measure(ctx) {
    const task = await sendEcho(ctx.server.rpcUrl, 'hi');
    return warmThenMeasure(ctx, {
      url: ctx.server.rpcUrl,
      connections: ctx.config.connections,
      body: rpcBody('GetTask', { id: task.id }),
      verify: isCompleted,
    });
  },
};

export const listTasks = {
  id: 'list',
  title: (c) =>
    `ListTasks first page (pageSize ${c.listPageSize}) at ${c.listFill.toLocaleString('en')} tasks, ` +
    `1 connection, ${c.seconds} s`,
  appliesTo: ['tandem', 'tandem-sqlite'],
  key: { metric: 'p50Ms', label: 'p50 ms' },
  columns: [...LATENCY_COLUMNS, { metric: 'rps', label: 'pages/s', format: 'int' }],
  async measure(ctx) {
    const fillFailures = await fillTasks(
      ctx.server.rpcUrl,
      ctx.config.listFill,
      ctx.config.connections,
    );
    const result = await warmThenMeasure(ctx, {
      url: ctx.server.rpcUrl,
      connections: 1,
      body: rpcBody('ListTasks', { pageSize: ctx.config.listPageSize }),
      verify: (body) => body.includes('"tasks":[') && !body.includes('"error"'),
    });
    return { ...result, failures: result.failures + fillFailures };
  },
};
