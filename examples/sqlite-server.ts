import {
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  defineAgent,
} from 'tandem/server';
import { SqliteTaskStore } from 'tandem/stores/sqlite';

const greeter = defineAgent({
  card: {
    name: 'Greeter',
    description: 'Greets',
    skills: [{ id: 'greet', name: 'Greet', description: 'Greets you', tags: ['demo'] }],
  },
  async execute(ctx) {
    await ctx.artifact(`Hello, ${ctx.text}!`);
  },
});

// 'FULL': every commit is synced to disk, so acknowledged tasks survive a power loss too.
const store = SqliteTaskStore.open({ path: './tandem.db', synchronous: 'FULL' });
const runtime = createTaskRuntime({ store });
await runtime.start(); // fails the tasks a previous process left SUBMITTED or WORKING
const server = createNodeServer({
  agents: [{ path: '', handler: createRequestHandler({ agent: greeter, runtime }) }],
});
await server.listen({ port: 41241 });

process.once('SIGTERM', () => {
  void (async () => {
    await server.shutdown({ deadlineMs: 10_000 });
    await runtime.close();
    await store.close();
  })();
});
