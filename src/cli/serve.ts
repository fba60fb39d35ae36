/**
 * `tandem serve`: runs the demo agents (or some of them) as an A2A server. It composes only the
 * public server API — a store, its runtime, one request handler per agent, `createA2AServer` — the
 * same way an application embedding Tandem would; its flags come in groups (`serve/options.ts`).
 */

import { createLogger, ListenError, silentLogger, type Logger } from '../server.js';
import { ExitCode } from './exit-code.js';
import { SERVE_HELP } from './serve/help.js';
import { announce } from './serve/banner.js';
import { parseServeArgs, type ServeOptions } from './serve/options.js';
import { untilStopped } from './serve/signals.js';
import { startServing } from './serve/start.js';

/** The flag and the environment variable that set the port of a listener. */
const PORT_SETTINGS = {
  http: '--port / PORT',
  grpc: '--grpc-port / TANDEM_GRPC_PORT',
} as const;

/**
 * grpc-js prints its own line to stderr for a failed bind ("No address added out of total 1
 * resolved") and other failures it also reports through its API, which the server reports in
 * its own words: its lines go to the log at debug, for diagnosis.
 */
async function routeGrpcLogs(logger: Logger): Promise<void> {
  const grpc = await import('@grpc/grpc-js');
  const toDebug = (...args: unknown[]): void =>
    logger.debug({ grpc: args.map(String).join(' ') }, 'grpc-js');
  grpc.setLogger({ error: toDebug, info: toDebug, debug: toDebug });
}

/** One line for a listener that could not listen: the address, why, and what sets the port. */
function listenFailure(error: ListenError): string {
  return `tandem serve: cannot listen on ${error.host}:${error.port} (set by ${PORT_SETTINGS[error.listener]}): ${error.reason}`;
}

/** Runs the command; resolves with the exit code once the server has stopped. */
export async function run(args: string[]): Promise<number> {
  let parsed: Awaited<ReturnType<typeof parseServeArgs>>;
  try {
    parsed = await parseServeArgs(args);
  } catch (error) {
    console.error(`tandem serve: ${error instanceof Error ? error.message : String(error)}`);
    console.error('Run `tandem serve --help` for the options.');
    return ExitCode.Usage;
  }
  if (parsed.help) {
    console.log(SERVE_HELP);
    return ExitCode.Success;
  }
  // `silent` loads no logging library at all: startup time matters to servers that scale to zero.
  const logger =
    parsed.logLevel === 'silent'
      ? silentLogger
      : createLogger({ level: parsed.logLevel, pretty: process.stdout.isTTY });
  return serve(parsed, logger);
}

async function serve(options: ServeOptions, logger: Logger): Promise<number> {
  if (options.grpcPort !== undefined) await routeGrpcLogs(logger);
  let serving: Awaited<ReturnType<typeof startServing>>;
  try {
    serving = await startServing(options, logger);
  } catch (error) {
    if (!(error instanceof ListenError)) throw error;
    console.error(listenFailure(error));
    return ExitCode.Connection;
  }
  const stopped = untilStopped(serving, options.security.reloadable, logger, options.shutdownMs);
  // Once the signals are handled: whoever waits for the banner may send SIGHUP or SIGTERM at once.
  announce(options, serving.address, logger, serving.metricsPort);
  return stopped;
}
