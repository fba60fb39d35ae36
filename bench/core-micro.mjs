// In-process micro-benchmark of Tandem's HTTP core (no sockets): the cost Tandem adds per request.
// Usage: node bench/core-micro.mjs [getTask|sendMessage|both] [iterations]
import { createHttpCore } from '../dist/http/http-core.js';
import { createRequestHandler } from '../dist/server.js';
import { MemoryTaskStore, openTaskStore, parseTaskStoreSpec } from '../dist/stores.js';
import { echo } from '../dist/agents/echo.js';

const [, , which = 'both', n = '200000'] = process.argv;
const retainedLogs = Number(process.env.RETAINED_LOGS ?? 1000);
const handler = createRequestHandler({
  agent: echo,
  agentName: 'echo',
  // TANDEM_STORE=sqlite:/tmp/x.db measures a durable store instead.
  store: process.env.TANDEM_STORE
    ? await openTaskStore(parseTaskStoreSpec(process.env.TANDEM_STORE))
    : new MemoryTaskStore({ retainedLogs }),
});
const core = createHttpCore({ agents: [{ path: '', handler }] });
const headers = { 'a2a-version': '1.0', 'content-type': 'application/json', host: '127.0.0.1:1' };
let counter = 0;
function request(body) {
  return {
    method: 'POST',
    path: '/a2a',
    query: '',
    scheme: 'http',
    mountPath: '',
    localPort: 1,
    get: (name) => headers[name],
    readBody: () => Promise.resolve(body),
    get signal() {
      return new AbortController().signal;
    },
  };
}
const send = () =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: ++counter,
    method: 'SendMessage',
    params: {
      message: { messageId: `m-${counter}`, role: 'ROLE_USER', parts: [{ text: 'echo hi' }] },
    },
  });
const first = await core.handle(request(send()));
const taskId = JSON.parse(first.body).result.task.id;
const get = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: taskId } });
async function measure(name, make, iterations) {
  for (let i = 0; i < 20000; i++) await core.handle(request(make()));
  const t = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const r = await core.handle(request(make()));
    if (r.status !== 200) throw new Error(r.body);
  }
  console.log(
    name,
    (Number(process.hrtime.bigint() - t) / iterations / 1000).toFixed(2),
    'µs/request',
  );
}
if (which !== 'sendMessage') await measure('GetTask', () => get, Number(n));
if (which !== 'getTask') await measure('SendMessage', send, Number(n) / 2);
