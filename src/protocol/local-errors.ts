/**
 * Local errors: bad configuration, misuse of the API, a closed client. They are raised to the code
 * that made the mistake and never cross the wire; a server that meets one while answering a
 * request logs it and answers a generic `InternalError`.
 */

/** Base class of every local error. */
export class LocalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A configuration value is missing or invalid; the message names it and says what to set. */
export class ConfigurationError extends LocalError {}

/** An API was called in a way its contract forbids (wrong order, wrong argument, after close). */
export class UsageError extends LocalError {}

/**
 * A task store failed or refused a write. From background work (flushing a file, say) there is no
 * caller to reject, so it goes to the store's `onError`; the message names the file and what
 * stopped. A write the store cannot hold (a bound of its schema) rejects with it and changes
 * nothing.
 */
export class StorageError extends LocalError {}

/** A task was created with an id that the store already holds; nothing was written. */
export class TaskExistsError extends StorageError {
  constructor(
    readonly taskId: string,
    options?: { cause?: unknown },
  ) {
    super(`Task ${taskId} already exists`, options);
  }
}

/**
 * A write handed to a task store breaks the store contract — event sequence numbers that do not
 * follow the log, a task created without its first event, a status without a valid timestamp.
 * It is a bug of the writer; the store writes nothing of it.
 */
export class InvalidTaskWriteError extends StorageError {}

/** A task status change that the A2A state machine forbids, e.g. leaving a terminal state. */
export class InvalidTransitionError extends LocalError {
  constructor(
    readonly from: string,
    readonly to: string,
    message = `Cannot move a task from ${from} to ${to}`,
  ) {
    super(message);
  }
}

/** Narrows any value to a local error. */
export function isLocalError(value: unknown): value is LocalError {
  return value instanceof LocalError;
}

/** A thrown value as an `Error`: itself when it is one, else wrapped with its text. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
