/**
 * Scenarios a and b over HTTP+JSON/REST (spec 11): `POST message:send` of `echo hi` (each request
 * a new task) and `GET tasks/{id}` of one existing task, driven by autocannon exactly as a and b
 * drive JSON-RPC — same connections, same bodies but for the JSON-RPC envelope, every answer
 * checked. The `÷ JSON-RPC` column is each target's REST rate over its own JSON-RPC rate (a or b)
 * in the same round: what the binding costs or saves on the same server.
 */

import { isCompleted } from '../lib/load.mjs';
import { REST_GET_HEADERS, restMessageBodies, restSendEcho, restTaskUrl } from '../lib/rest.mjs';
import { LATENCY_COLUMNS, warmThenMeasure } from './request-load.mjs';

const REST_TARGETS = ['a2a-js', 'tandem'];

export const restSendMessage = {
  id: 'rest-a',
  title: (c) =>
    `rest-a. HTTP+JSON SendMessage \`echo hi\` (POST message:send), ${c.connections} connections, ${c.seconds} s`,
  appliesTo: REST_TARGETS,
  transport: 'rest',
  references: ['a2a-js'],
  base: { scenario: 'a', label: 'JSON-RPC' },
  key: { metric: 'rps', label: 'req/s' },
  columns: [{ metric: 'rps', label: 'req/s', format: 'int' }, ...LATENCY_COLUMNS],
  measure: (ctx) =>
    warmThenMeasure(ctx, {
      url: `${ctx.server.restUrl}/message:send`,
      connections: ctx.config.connections,
      nextBody: restMessageBodies('echo hi'),
      verify: isCompleted,
    }),
};

export const restGetTask = {
  id: 'rest-b',
  title: (c) =>
    `rest-b. HTTP+JSON GetTask of an existing task (GET tasks/{id}), ${c.connections} connections, ${c.seconds} s`,
  appliesTo: REST_TARGETS,
  transport: 'rest',
  references: ['a2a-js'],
  base: { scenario: 'b', label: 'JSON-RPC' },
  key: { metric: 'rps', label: 'req/s' },
  columns: [{ metric: 'rps', label: 'req/s', format: 'int' }, ...LATENCY_COLUMNS],
  async measure(ctx) {
    const task = await restSendEcho(ctx.server.restUrl, 'hi');
    return warmThenMeasure(ctx, {
      url: restTaskUrl(ctx.server.restUrl, task.id),
      method: 'GET',
      headers: REST_GET_HEADERS,
      connections: ctx.config.connections,
      verify: isCompleted,
    });
  },
};
