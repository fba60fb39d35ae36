/**
 * `tandem serve`: runs the demo agents (or some of them) as an A2A server. It composes only the
 * public server API — a store, its runtime, one request handler per agent, `createA2AServer` — the
 * same way an application embedding Tandem would; its flags come in groups (`serve/options.ts`).
 */

import { createLogger, silentLogger } from '../server.js';
import { ExitCode } from './exit-code.js';
import { SERVE_HELP } from './serve/help.js';
import { parseServeArgs } from './serve/options.js';
import { untilStopped } from './serve/signals.js';
import { startServing } from './serve/start.js';

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
  const serving = await startServing(parsed, logger);
  return untilStopped(serving, parsed.security.reloadable, logger, parsed.shutdownMs);
}
