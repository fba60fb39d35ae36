/**
 * A logger that keeps what it is given, for tests that check what reaches the log (an agent's
 * failure, an unexpected error) — and can wait for a line instead of sleeping until it is there.
 */

import type { Logger } from '../../src/server.js';

/** One log call, as a {@link recordingLogger} keeps it. */
export interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly context: object;
  readonly message: string | undefined;
}

/** A {@link Logger} with what it was given. */
export interface RecordingLogger extends Logger {
  readonly entries: readonly LogEntry[];
  /** The entries of one level. */
  at(level: LogEntry['level']): LogEntry[];
  /** Resolves with the first entry (logged so far or later) that `matches` accepts. */
  next(matches: (entry: LogEntry) => boolean): Promise<LogEntry>;
}

export function recordingLogger(): RecordingLogger {
  const entries: LogEntry[] = [];
  const waiters = new Set<{
    matches: (entry: LogEntry) => boolean;
    resolve: (e: LogEntry) => void;
  }>();
  const log =
    (level: LogEntry['level']) =>
    (context: object, message?: string): void => {
      const entry = { level, context, message };
      entries.push(entry);
      for (const waiter of [...waiters]) {
        if (!waiter.matches(entry)) continue;
        waiters.delete(waiter);
        waiter.resolve(entry);
      }
    };
  const logger: RecordingLogger = {
    entries,
    at: (level) => entries.filter((entry) => entry.level === level),
    next(matches) {
      const found = entries.find(matches);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiters.add({ matches, resolve }));
    },
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: () => logger,
  };
  return logger;
}
