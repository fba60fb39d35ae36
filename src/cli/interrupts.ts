/**
 * Ctrl-C handling. A command that does not install its own handler dies of SIGINT with the
 * spinner still on screen; these helpers tidy the terminal first, and let `stream` and `chat`
 * turn the first Ctrl-C into a cancel of the running task.
 */

import { INTERRUPTED_EXIT_CODE } from './exit-code.js';
import type { Terminal } from './terminal.js';

/** Calls `onPress` on each SIGINT until the returned function is called. */
export function onInterrupt(onPress: () => void): () => void {
  process.on('SIGINT', onPress);
  return () => {
    process.off('SIGINT', onPress);
  };
}

/** Stops the spinner, closes the open line and exits with the interrupted code. */
export function exitInterrupted(terminal: Terminal): never {
  terminal.close();
  process.exit(INTERRUPTED_EXIT_CODE);
}

/** For commands that only wait for an answer: Ctrl-C tidies the terminal and exits. */
export function exitOnInterrupt(terminal: Terminal): () => void {
  return onInterrupt(() => exitInterrupted(terminal));
}
