/**
 * `tandem serve`: runs the demo agents (or some of them) as an A2A server. It composes only the
 * public server API — a store, its runtime, one request handler per agent, the node adapter — the
 * same way an application embedding Tandem would.
 */

import { parseArgs } from 'node:util';
import { demoAgentNames } from '../agents/index.js';
import {
  createCardSigner,
  createLogger,
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  describeTaskStoreSpec,
  openTaskStore,
  parseTaskStoreSpec,
  silentLogger,
  startRetention,
  type A2AAgentMount,
  type LogLevel,
} from '../server.js';
import { ExitCode } from './exit-code.js';
import { parseDuration, UsageFailure } from './cli-values.js';
import { SECURITY_HELP, SECURITY_OPTIONS, parseServeSecurity } from './serve-security.js';
import { LIMIT_HELP, LIMIT_OPTIONS, parseServeLimits } from './serve-limits.js';
import { GRPC_HELP, GRPC_OPTIONS, parseGrpcPort, prepareGrpc } from './serve-grpc.js';
import { PUSH_HELP, PUSH_OPTIONS, parseServePush, startServePush } from './serve-push.js';
import {
  EXTENDED_CARD_HELP,
  EXTENDED_CARD_OPTIONS,
  parseExtendedCards,
  withExtendedCard,
} from './serve-extended-card.js';
import {
  AGENT_HELP,
  AGENT_OPTIONS,
  isServedAgentName,
  loadServedAgent,
  parseServedAgents,
  servedAgentNames,
} from './serve-agents.js';
import { COMPAT_HELP, COMPAT_OPTIONS, loadServeCompat, parseServeCompat } from './serve-compat.js';
import {
  PREFERRED_BINDING_HELP,
  PREFERRED_BINDING_OPTIONS,
  parsePreferredBinding,
} from './serve-preferred-binding.js';

const HELP = `Usage: tandem serve [options]

Serves demo agents over A2A (JSON-RPC and HTTP+JSON bindings, gRPC with --grpc-port) and
prints where to find them.

Options:
  --port <n>              Port to listen on (default 41241, env PORT)
  --host <host>           Address to bind (default 127.0.0.1, env TANDEM_HOST)
  --public-url <url>      URL clients use to reach this server, for agent cards (env TANDEM_PUBLIC_URL)
  --agent <name>          Agent to serve; repeat for several (default: all of ${demoAgentNames.join(', ')};
                          also chat and orchestrator, configured below)
  --store <store>         memory | sqlite:PATH | postgres://...[?schema=NAME]
                          (default sqlite:./tandem.db, env TANDEM_STORE)
  --log-level <level>     trace | debug | info | warn | error | silent (default info, env TANDEM_LOG_LEVEL)
  --retention <duration>  Purge tasks finished longer ago than this, e.g. 7d, 12h (default: keep forever)
  --orphan-timeout <dur>  Fail tasks whose server died after this long (default 30s; replicas only)
  --shutdown-timeout <d>  Time running work may take to finish on SIGTERM (default 10s)
  --heartbeat <duration>  SSE heartbeat interval on idle streams (default 15s)
${PREFERRED_BINDING_HELP}
  -h, --help              Show this help

${SECURITY_HELP}
${EXTENDED_CARD_HELP}

${GRPC_HELP}

${AGENT_HELP}

${LIMIT_HELP}

${COMPAT_HELP}

${PUSH_HELP}

With one agent its card is at /.well-known/agent-card.json; with several, each agent lives
under /agents/<name>/ and the first one's card is also served at the root.`;

function envOr(name: string, fallback: string): string {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
}

function parseServeArgs(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'public-url': { type: 'string' },
      agent: { type: 'string', multiple: true },
      store: { type: 'string' },
      'log-level': { type: 'string' },
      retention: { type: 'string' },
      'orphan-timeout': { type: 'string' },
      'shutdown-timeout': { type: 'string' },
      heartbeat: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      ...SECURITY_OPTIONS,
      ...EXTENDED_CARD_OPTIONS,
      ...LIMIT_OPTIONS,
      ...GRPC_OPTIONS,
      ...PREFERRED_BINDING_OPTIONS,
      ...AGENT_OPTIONS,
      ...COMPAT_OPTIONS,
      ...PUSH_OPTIONS,
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port ?? envOr('PORT', '41241'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageFailure(`--port must be an integer between 0 and 65535, got ${values.port}`);
  }
  const agents: readonly string[] = values.agent ?? demoAgentNames;
  for (const name of agents) {
    if (!isServedAgentName(name)) {
      throw new UsageFailure(`Unknown agent "${name}"; available: ${servedAgentNames.join(', ')}`);
    }
  }
  const logLevel = values['log-level'] ?? envOr('TANDEM_LOG_LEVEL', 'info');
  const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
  if (!levels.includes(logLevel)) {
    throw new UsageFailure(`--log-level must be one of ${levels.join(', ')}, got ${logLevel}`);
  }
  const publicUrl = values['public-url'] ?? process.env.TANDEM_PUBLIC_URL;
  if (values.help === true) return { help: true } as const;
  const grpcPort = parseGrpcPort(values);
  return {
    help: false,
    security: parseServeSecurity(values),
    extendedCards: parseExtendedCards(values['extended-card'], agents),
    limits: parseServeLimits(values),
    grpcPort,
    preferredBinding: parsePreferredBinding(values, grpcPort !== undefined),
    compat: parseServeCompat(values),
    push: parseServePush(values),
    port,
    host: values.host ?? envOr('TANDEM_HOST', '127.0.0.1'),
    publicUrl: publicUrl === '' ? undefined : publicUrl,
    agents: [...new Set(agents)].filter(isServedAgentName),
    agentFlags: values,
    store: parseTaskStoreSpec(values.store ?? envOr('TANDEM_STORE', 'sqlite:./tandem.db')),
    logLevel: logLevel as LogLevel,
    retentionMs:
      values.retention === undefined ? undefined : parseDuration(values.retention, '--retention'),
    orphanTimeoutMs: parseDuration(values['orphan-timeout'] ?? '30s', '--orphan-timeout'),
    shutdownMs: parseDuration(values['shutdown-timeout'] ?? '10s', '--shutdown-timeout'),
    heartbeatMs: parseDuration(values.heartbeat ?? '15s', '--heartbeat'),
  };
}

/** Runs the command; resolves with the exit code once the server has stopped. */
export async function run(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseServeArgs>;
  let agentSettings: Awaited<ReturnType<typeof parseServedAgents>> | undefined;
  try {
    parsed = parseServeArgs(args);
    if (!parsed.help) agentSettings = await parseServedAgents(parsed.agentFlags, parsed.agents);
  } catch (error) {
    console.error(`tandem serve: ${error instanceof Error ? error.message : String(error)}`);
    console.error('Run `tandem serve --help` for the options.');
    return ExitCode.Usage;
  }
  if (parsed.help || agentSettings === undefined) {
    console.log(HELP);
    return ExitCode.Success;
  }
  const options = parsed;
  const { security } = options;
  // `silent` loads no logging library at all: startup time matters to servers that scale to zero.
  const logger =
    options.logLevel === 'silent'
      ? silentLogger
      : createLogger({ level: options.logLevel, pretty: process.stdout.isTTY });
  if (options.extendedCards.size > 0 && security.authentication === undefined) {
    logger.warn(
      {},
      'an extended agent card is configured without --auth: every caller can read it (spec 13.3 wants authenticated callers)',
    );
  }
  const compat = options.compat === undefined ? undefined : await loadServeCompat(options.compat);
  const store = await openTaskStore(options.store, {
    onError: (error) => logger.warn({ err: error }, 'task store background error'),
  });
  const runtime = createTaskRuntime({ store, logger, orphanTimeoutMs: options.orphanTimeoutMs });
  await runtime.start();
  const push = startServePush(options.push, runtime, logger);
  const stopRetention =
    options.retentionMs === undefined
      ? undefined
      : startRetention(store, options.retentionMs, logger);
  const single = options.agents.length === 1;
  const mounts: A2AAgentMount[] = await Promise.all(
    options.agents.map(async (name) => ({
      path: single ? '' : `/agents/${name}`,
      handler: createRequestHandler({
        agent: withExtendedCard(
          await loadServedAgent(name, agentSettings),
          name,
          options.extendedCards,
        ),
        runtime,
        agentName: name,
        contentLimits: options.limits?.content,
        ...(push === undefined ? {} : { push }),
        ...(security.accessPolicy === undefined ? {} : { accessPolicy: security.accessPolicy }),
      }),
    })),
  );
  const grpc =
    options.grpcPort === undefined
      ? undefined
      : await prepareGrpc({
          ...{ port: options.grpcPort, host: options.host, mounts, logger },
          ...{ authenticate: security.authentication, tls: security.tls },
          failedAuthentications: security.failedAuthentications,
          publicUrl: options.publicUrl,
          cardInterfaces: (path) => () => server.interfacesOf(path),
          compat: options.compat !== undefined,
          limits: options.limits?.calls,
        });
  const server = createNodeServer({
    agents: grpc?.mounts ?? mounts,
    logger,
    heartbeatMs: options.heartbeatMs,
    limits: options.limits?.calls,
    ...(options.preferredBinding === undefined
      ? {}
      : { preferredBinding: options.preferredBinding }),
    ...(compat === undefined ? {} : { compat }),
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
    ...(security.authentication === undefined ? {} : { authenticate: security.authentication }),
    ...(security.failedAuthentications === undefined
      ? {}
      : { failedAuthentications: security.failedAuthentications }),
    ...(security.tls === undefined ? {} : { tls: security.tls }),
    ...(security.cardSigning === undefined
      ? {}
      : { cardSigner: await createCardSigner(security.cardSigning) }),
  });
  const grpcAddress = await grpc?.listen();
  const address = await server.listen({ port: options.port, host: options.host });
  const base = options.publicUrl?.replace(/\/+$/, '') ?? address.url.replace(/\/+$/, '');
  logger.info(
    { url: base, store: describeTaskStoreSpec(options.store), agents: options.agents },
    'tandem is serving',
  );
  console.log(`Tandem is serving ${options.agents.join(', ')} at ${base}`);
  for (const [i, name] of options.agents.entries()) {
    const path = single ? '' : `/agents/${name}`;
    const root = i === 0 && !single ? ` (also ${base}/.well-known/agent-card.json)` : '';
    console.log(`  ${name.padEnd(12)} ${base}${path}/.well-known/agent-card.json${root}`);
  }
  if (grpcAddress !== undefined) console.log(`  gRPC         ${grpcAddress}`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) {
        console.error(`tandem serve: ${signal} again, exiting now`);
        process.exit(ExitCode.Connection);
      }
      stopping = true;
      logger.info({ signal, deadlineMs: options.shutdownMs }, 'shutting down');
      void (async () => {
        await Promise.all([
          server.shutdown({ deadlineMs: options.shutdownMs }),
          grpc?.shutdown(options.shutdownMs),
        ]);
        stopRetention?.();
        await push?.close();
        await runtime.close();
        await store.close();
        logger.info({}, 'stopped');
        resolve(ExitCode.Success);
      })().catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        resolve(ExitCode.Connection);
      });
    };
    process.on('SIGHUP', () => {
      for (const list of security.reloadable) {
        try {
          const size = list.reload();
          logger.info({ from: list.origin, count: size }, 're-read credentials');
        } catch (error) {
          logger.error(
            { err: error, from: list.origin },
            'could not re-read credentials; keeping the old ones',
          );
        }
      }
    });
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}
