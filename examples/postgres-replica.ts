import {
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  defineAgent,
} from 'tandem/server';
import { PostgresTaskStore } from 'tandem/stores/postgres';

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

// Every replica opens the same schema; the first to start creates or migrates it.
const store = await PostgresTaskStore.open({
  connectionString: process.env.DATABASE_URL ?? 'postgres://tandem@localhost:5432/tandem',
  schema: 'tandem',
  onError: (error) => console.warn(`task store: ${error.message}`),
});
// Leases last 80% of the orphan timeout: a replica that dies has its tasks failed within it.
const runtime = createTaskRuntime({ store, orphanTimeoutMs: 30_000 });
await runtime.start();
const server = createNodeServer({
  agents: [{ path: '', handler: createRequestHandler({ agent: greeter, runtime }) }],
});
await server.listen({ port: 41241, host: '0.0.0.0' });
