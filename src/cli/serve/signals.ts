/**
 * How a running `tandem serve` answers signals: SIGTERM and SIGINT stop it gracefully (a second
 * one exits at once), SIGHUP re-reads the credential files.
 */

import type { CredentialList, Logger } from '../../server.js';
import { ExitCode } from '../exit-code.js';
import type { Serving } from './start.js';

/** Resolves with the exit code once a signal has stopped `serving`. */
export function untilStopped(
  serving: Serving,
  reloadable: readonly CredentialList[],
  logger: Logger,
  deadlineMs: number,
): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) {
        console.error(`tandem serve: ${signal} again, exiting now`);
        process.exit(ExitCode.Connection);
      }
      stopping = true;
      logger.info({ signal, deadlineMs }, 'shutting down');
      serving.stop().then(
        () => {
          logger.info({}, 'stopped');
          resolve(ExitCode.Success);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          resolve(ExitCode.Connection);
        },
      );
    };
    process.on('SIGHUP', () => reload(reloadable, logger));
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}

function reload(lists: readonly CredentialList[], logger: Logger): void {
  for (const list of lists) {
    try {
      const size = list.reload();
      logger.info({ from: list.origin, count: size }, 're-read credentials');
    } catch (error) {
      // An operator's mistake (a file moved, a line malformed), not a fault of the server: one
      // line with the reason, no stack trace. The reason names the file and line, never a secret.
      logger.error(
        { from: list.origin, reason: error instanceof Error ? error.message : String(error) },
        'could not re-read credentials; keeping the old ones',
      );
    }
  }
}
