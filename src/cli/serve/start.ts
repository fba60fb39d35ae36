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
import { openTaskStore, startRetention, type TaskStore } from '../../stores.js';
import { loadServedAgent } from './agents.js';
import { pathOf, warnIfOpen } from './banner.js';
import { loadServeCompat } from './compat.js';
import { withExtendedCard } from './extended-card.js';
import type { ServeOptions } from './options.js';
import { startServePush } from './push.js';
import { startServeTelemetry, type ServingTelemetry } from './telemetry.js';

/** A running `tandem serve`. */
export interface Serving {
  readonly server: A2AServer;
  readonly address: A2AServerAddress;
  /** The port of the listener of its own that serves `/metrics`, when `--metrics-port` asks. */
  readonly metricsPort: number | undefined;
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
    trustProxy: options.trustProxy,
    preferredBinding: options.preferredBinding,
    compat: options.compat === undefined ? undefined : await loadServeCompat(options.compat),
    olderVersionHint:
      'start the server with --compat 0.3 (env TANDEM_COMPAT) to serve 0.3 clients too',
    publicUrl: options.publicUrl,
    telemetry: { trustInboundContext: options.telemetry.trustInboundContext },
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

/** Starts everything the options ask for; resolves once every listener listens (unannounced). */
export async function startServing(options: ServeOptions, logger: Logger): Promise<Serving> {
  if (options.security.extendedCards.size > 0 && options.security.authentication === undefined) {
    logger.warn(
      {},
      'an extended agent card is configured without --auth: every caller can read it (spec 13.3 wants authenticated callers)',
    );
  }
  warnIfOpen(options, logger);
  const telemetry = await startServeTelemetry(options.telemetry, options);
  const tasks = await startTaskServices(options, logger);
  const stopTasks = async (): Promise<void> => {
    tasks.stopRetention?.();
    await tasks.push?.close();
    await tasks.runtime.close();
    await tasks.store.close();
    await telemetry.shutdown();
  };
  let server: A2AServer;
  let address: A2AServerAddress;
  try {
    server = await serverOf(options, await mountsOf(options, tasks, logger), logger, telemetry);
    // A listen that fails stops the listeners started before it (createA2AServer); what was
    // started here stops too, so that the process can exit.
    address = await server.listen();
  } catch (error) {
    await stopTasks();
    throw error;
  }
  return {
    server,
    address,
    metricsPort: telemetry.metricsPort,
    async stop() {
      await server.shutdown({ deadlineMs: options.shutdownMs });
      await stopTasks();
    },
  };
}
