/** Exit codes shared by every command (documented in README.md). */
export const ExitCode = {
  /** The command did what was asked. */
  Success: 0,
  /** The agent's task failed, was rejected or was canceled. */
  TaskFailed: 1,
  /** The command line was wrong. */
  Usage: 2,
  /** Connection, protocol or server error. */
  Connection: 3,
} as const;

/**
 * The exit code after a Ctrl-C that ended the command before its work was done (128 + SIGINT, as
 * shells report a process killed by the signal).
 */
export const INTERRUPTED_EXIT_CODE = 130;
