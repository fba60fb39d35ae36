import {
  createA2AServer,
  createLogger,
  createRequestHandler,
  defineAgent,
  isEventStream,
  observeEvents,
  type ServerInterceptor,
} from 'tandem/server';

const logger = createLogger({ level: 'info' });

// One line per call on every binding: a unary call when it answers, a stream when it ends —
// completed, failed, or canceled by the client.
const timing: ServerInterceptor = (next) => async (operation, call, request) => {
  const start = performance.now();
  const log = (outcome: string): void =>
    logger.info({ operation, binding: call.binding, outcome, ms: performance.now() - start });
  try {
    const result = await next(operation, call, request);
    if (!isEventStream(result)) log('ok');
    else return observeEvents(result, { onEnd: (end) => log(end.kind) });
    return result;
  } catch (error) {
    log('error');
    throw error;
  }
};

const echo = defineAgent({
  card: {
    name: 'Echo',
    description: 'Echoes',
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes your text', tags: ['demo'] }],
  },
  async execute(ctx) {
    await ctx.artifact(ctx.text);
  },
});

const server = createA2AServer({
  agents: [{ path: '', handler: createRequestHandler({ agent: echo }) }],
  interceptors: [timing],
  http: { port: 3000 },
  grpc: { port: 50051 },
});
await server.listen();
