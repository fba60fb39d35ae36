/**
 * A listener of `createA2AServer` that could not listen: which one (HTTP or gRPC), on which
 * address, and why in words (the port is taken, it needs privileges, the address is not this
 * machine's), so that an application can name the setting to change without parsing Node's or
 * grpc-js's messages.
 */

import { LocalError } from '../protocol/local-errors.js';

/** Which listener of a server. */
export type ListenerKind = 'http' | 'grpc';

/** Why a listen fails, by the system's error code (Node's, or the one in grpc-js's message). */
const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is already in use',
  EACCES: 'permission denied (ports under 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
};

/** A listener failed to start; the server stopped every listener it had started before it. */
export class ListenError extends LocalError {
  /** What the system said, in words: `the port is already in use`. */
  readonly reason: string;

  /**
   * @param listener the listener that failed.
   * @param host the host it was to bind.
   * @param port the port it was to bind (0: any free one).
   * @param code the system error code (`EADDRINUSE`...), when one was reported.
   */
  constructor(
    readonly listener: ListenerKind,
    readonly host: string,
    readonly port: number,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    const reason =
      (code === undefined ? undefined : REASONS[code]) ?? `it failed (${code ?? 'no error code'})`;
    super(
      `The ${listener === 'http' ? 'HTTP' : 'gRPC'} listener cannot listen on ${host}:${port}: ${reason}`,
      options,
    );
    this.reason = reason;
  }
}

/** The system error code of a failed listen: Node's `code`, else one named in the message. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const message = error instanceof Error ? error.message : String(error);
  return /\b(E[A-Z_]{3,})\b/.exec(message)?.[1];
}

/** The {@link ListenError} of `error`, raised by the listener `listener` on `host:port`. */
export function listenErrorOf(
  listener: ListenerKind,
  host: string,
  port: number,
  error: unknown,
): ListenError {
  return new ListenError(listener, host, port, codeOf(error), { cause: error });
}
