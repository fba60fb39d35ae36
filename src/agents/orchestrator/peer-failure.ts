/**
 * Why a peer could not be used, in two forms: a reason for the orchestrator's caller, which names
 * the peer by its card's name (or its place in the list) and never by its URL, since a peer's
 * URL may be internal; and a warn line for the operator, who configured the URL and needs it to
 * fix the peer, without its query or user info (where credentials would be).
 *
 * A card that was fetched but is invalid is reported with its problems, not as unreachable: the
 * operator of that peer has a card to fix, not a server to start.
 */

import {
  AgentCardError,
  CallTimeoutError,
  ConnectionError,
  HttpStatusError,
  NoCompatibleInterfaceError,
  ProtocolViolationError,
  isA2AError,
} from '../../client.js';
import type { Logger } from '../../server.js';

/** At most this many card problems are named in a reason; the log has the count. */
const SHOWN_VIOLATIONS = 3;

/** The system error code (`ECONNREFUSED`...) somewhere in an error's cause chain. */
function systemCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$|^UND_ERR/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What a refused or lost connection was, in words. */
function connectionDetail(error: unknown): string {
  switch (systemCodeOf(error)) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'its host name could not be resolved';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed';
    case undefined:
      return 'no connection';
    default:
      return `no connection: ${systemCodeOf(error)}`;
  }
}

/**
 * Why the card of `subject` (a peer's name, or "peer 2") could not be read, for the caller.
 * `error` is what the card resolver threw.
 */
export function cardFailureOf(error: unknown, subject: string): string {
  if (error instanceof AgentCardError) {
    if (error.violations.length > 0) {
      const shown = error.violations
        .slice(0, SHOWN_VIOLATIONS)
        .map((v) => `${v.field}: ${v.description}`)
        .join('; ');
      const more =
        error.violations.length > SHOWN_VIOLATIONS
          ? ` (and ${error.violations.length - SHOWN_VIOLATIONS} more)`
          : '';
      return `the agent card of ${subject} is invalid (${shown}${more})`;
    }
    const cause = error.cause;
    if (cause instanceof CallTimeoutError) return `${subject} did not send its agent card in time`;
    if (cause instanceof ConnectionError) {
      return `${subject} could not be reached (${connectionDetail(cause)})`;
    }
    if (cause instanceof HttpStatusError) {
      return `${subject} answered HTTP ${cause.status} where its agent card should be`;
    }
    if (cause instanceof SyntaxError) return `the agent card of ${subject} is not JSON`;
    return `the agent card of ${subject} could not be read`;
  }
  return `the agent card of ${subject} could not be read`;
}

/** Why a call to the peer `name` failed, in words for the caller (no URL). */
export function callFailureOf(error: unknown, name: string): string | undefined {
  if (isA2AError(error)) return `${name} refused the request: ${error.message}`;
  if (error instanceof CallTimeoutError) return `${name} did not answer in time`;
  if (error instanceof ConnectionError) return `${name} could not be reached`;
  if (error instanceof NoCompatibleInterfaceError) {
    return `${name} offers no interface this orchestrator speaks`;
  }
  if (error instanceof HttpStatusError) {
    return `${name} answered HTTP ${error.status} instead of A2A`;
  }
  if (error instanceof AgentCardError) return cardFailureOf(error, name);
  if (error instanceof ProtocolViolationError) {
    return `${name} answered something that is not valid A2A`;
  }
  return undefined;
}

/** A peer URL fit for the log: no user info, no query, no fragment. */
export function loggedUrlOf(url: string): string {
  if (!URL.canParse(url)) return '[not a URL]';
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** What a warn line about a peer says besides the reason. */
export interface PeerFailureContext {
  readonly taskId: string;
  /** The peer's URL as configured; logged without query or user info. */
  readonly url: string;
  /** The peer's key (the digest tasks refer to it by). */
  readonly peer: string;
}

/** Logs, at warn, that a peer could not be used for a task, and why. */
export function warnPeerFailure(logger: Logger, context: PeerFailureContext, reason: string): void {
  logger.warn(
    { taskId: context.taskId, peer: context.peer, peerUrl: loggedUrlOf(context.url), reason },
    'orchestrator: a peer agent could not be used',
  );
}
