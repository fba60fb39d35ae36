/**
 * What `tandem serve` starts, in order, from the public server API only — as an application
 * embedding Tandem would: the store and its runtime (with push delivery and retention), one
 * request handler per agent, and one `createA2AServer` that serves them on HTTP and, with
 * `--grpc-port`, gRPC; and how it all stops, in the reverse order.
 */

import {
  createA2AServer,
  createCardSigner,
  createRequestHandler,
  createTaskRuntime,
  type A2AAgentMount,
  type A2AServer,
  type A2AServerAddress,
  type Logger,
  type PushNotifier,
  type TaskRuntime,
} from '../../server.js';
import {
  describeTaskStoreSpec,
  openTaskStore,
  startRetention,
  type TaskStore,
} from '../../stores.js';
import { loadServedAgent } from './agents.js';
import { loadServeCompat } from './compat.js';
import { withExtendedCard } from './extended-card.js';
import type { ServeOptions } from './options.js';
import { startServePush } from './push.js';
import { startServeTelemetry, type ServingTelemetry } from './telemetry.js';

/** A running `tandem serve`. */
export interface Serving {
  readonly server: A2AServer;
  readonly address: A2AServerAddress;
  /** Stops the listeners (letting work finish up to the deadline), then the runtime and store. */
  stop(): Promise<void>;
}

/** Where the tasks live, and what runs over them. */
interface TaskServices {
  readonly store: TaskStore;
  readonly runtime: TaskRuntime;
  readonly push: PushNotifier | undefined;
  readonly stopRetention: (() => void) | undefined;
}

async function startTaskServices(options: ServeOptions, logger: Logger): Promise<TaskServices> {
  const store = await openTaskStore(options.store, {
    onError: (error) => logger.warn({ err: error }, 'task store background error'),
    onWaiting: (message) => logger.warn({}, message),
  });
  const runtime = createTaskRuntime({ store, logger, orphanTimeoutMs: options.orphanTimeoutMs });
  await runtime.start();
  return {
    store,
    runtime,
    // The compat layer renders the deliveries to webhooks its clients set up (0.3: the Task).
    push: startServePush(
      options.push,
      runtime,
      logger,
      options.compat === undefined ? undefined : await loadServeCompat(options.compat),
    ),
    stopRetention:
      options.retentionMs === undefined
        ? undefined
        : startRetention(store, options.retentionMs, logger),
  };
}

/** The agent's path: the root for a single agent, `/agents/<name>` for several. */
function pathOf(options: ServeOptions, name: string): string {
  return options.agents.length === 1 ? '' : `/agents/${name}`;
}

function mountsOf(
  options: ServeOptions,
  tasks: TaskServices,
  logger: Logger,
): Promise<A2AAgentMount[]> {
  return Promise.all(
    options.agents.map(async (name) => ({
      path: pathOf(options, name),
      handler: createRequestHandler({
        agent: withExtendedCard(
          await loadServedAgent(name, options.agentSettings, logger),
          name,
          options.security.extendedCards,
        ),
        runtime: tasks.runtime,
        agentName: name,
        contentLimits: options.limits?.content,
        push: tasks.push,
        accessPolicy: options.security.accessPolicy,
      }),
    })),
  );
}

async function serverOf(
  options: ServeOptions,
  agents: A2AAgentMount[],
  logger: Logger,
  telemetry: ServingTelemetry,
): Promise<A2AServer> {
  const { security } = options;
  const tls = security.tls;
  return createA2AServer({
    agents,
    logger,
    limits: options.limits?.calls,
    preferredBinding: options.preferredBinding,
    compat: options.compat === undefined ? undefined : await loadServeCompat(options.compat),
    publicUrl: options.publicUrl,
    authenticate: security.authentication,
    failedAuthentications: security.failedAuthentications,
    http: {
      port: options.port,
      host: options.host,
      heartbeatMs: options.heartbeatMs,
      metrics: telemetry.metrics,
      tls,
      cardSigner:
        security.cardSigning === undefined
          ? undefined
          : await createCardSigner(security.cardSigning),
    },
    grpc:
      options.grpcPort === undefined
        ? undefined
        : { port: options.grpcPort, host: options.host, tls },
  });
}

/** Prints where each agent's card is, and the gRPC address. */
function announce(options: ServeOptions, address: A2AServerAddress, logger: Logger): void {
  const listened = address.http?.url ?? '';
  const base = options.publicUrl?.replace(/\/+$/, '') ?? listened.replace(/\/+$/, '');
  logger.info(
    { url: base, store: describeTaskStoreSpec(options.store), agents: options.agents },
    'tandem is serving',
  );
  console.log(`Tandem is serving ${options.agents.join(', ')} at ${base}`);
  const several = options.agents.length > 1;
  for (const [i, name] of options.agents.entries()) {
    const root = i === 0 && several ? ` (also ${base}/.well-known/agent-card.json)` : '';
    const card = `${base}${pathOf(options, name)}/.well-known/agent-card.json`;
    console.log(`  ${name.padEnd(12)} ${card}${root}`);
  }
  if (address.grpc !== undefined) console.log(`  gRPC         ${address.grpc.address}`);
}

/** Starts everything the options ask for; resolves once every listener listens. */
export async function startServing(options: ServeOptions, logger: Logger): Promise<Serving> {
  if (options.security.extendedCards.size > 0 && options.security.authentication === undefined) {
    logger.warn(
      {},
      'an extended agent card is configured without --auth: every caller can read it (spec 13.3 wants authenticated callers)',
    );
  }
  const telemetry = await startServeTelemetry(options.telemetry, options);
  const tasks = await startTaskServices(options, logger);
  const server = await serverOf(options, await mountsOf(options, tasks, logger), logger, telemetry);
  const address = await server.listen();
  announce(options, address, logger);
  if (telemetry.metricsPort !== undefined) {
    console.log(`  metrics      http://${options.host}:${telemetry.metricsPort}/metrics`);
  }
  return {
    server,
    address,
    async stop() {
      await server.shutdown({ deadlineMs: options.shutdownMs });
      tasks.stopRetention?.();
      await tasks.push?.close();
      await tasks.runtime.close();
      await tasks.store.close();
      await telemetry.shutdown();
    },
  };
}
