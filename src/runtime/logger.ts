/**
 * The logging seam. The runtime and the HTTP layer log through this interface; the server wires
 * it to pino. Call shape follows pino: a context object first, then a message. At `info`, nothing
 * logged may contain credentials or message contents.
 */

/** A structured logger. */
export interface Logger {
  debug(context: object, message?: string): void;
  info(context: object, message?: string): void;
  warn(context: object, message?: string): void;
  error(context: object, message?: string): void;
  /** A logger that adds `bindings` to every line. */
  child(bindings: object): Logger;
}

const noop = (): void => {};

/** A logger that discards everything, for tests and embedding. */
export const silentLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
};
