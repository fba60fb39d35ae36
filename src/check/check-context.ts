/**
 * What a check is given. An agent check sees the card as found; an interface check sees the
 * probe of its interface, the card as the run reads it, the fixtures (tasks made once per
 * interface and shared by the checks that need them), and every outcome the interface has
 * produced so far — the binding and error checks judge those, so that each error is weighed
 * wherever the run met it.
 */

import type { Message } from '../protocol/generated/types.js';
import type { CardView } from './card-view.js';
import type { DiscoveredCard } from './card-discovery.js';
import type { CheckOptions } from './check-types.js';
import type { Fixtures } from './fixtures.js';
import type { CallOutcome, Probe, StreamOutcome } from './probe/probe.js';
import type { ProbeEnvironment } from './probe/probe-environment.js';
import type { PushReceiver } from './push-receiver.js';
import type { Unavailable } from './verdict.js';

/** What agent checks see. */
export interface AgentCheckContext {
  readonly discovered: DiscoveredCard;
  readonly view: CardView;
  readonly environment: ProbeEnvironment;
  readonly options: CheckOptions;
}

/** One outcome the interface produced, with the operation that produced it. */
export interface Observation {
  readonly operation: string;
  readonly outcome: CallOutcome | StreamOutcome;
}

/** What interface checks see. */
export interface InterfaceCheckContext {
  readonly probe: Probe;
  readonly view: CardView;
  readonly environment: ProbeEnvironment;
  readonly options: CheckOptions;
  readonly fixtures: Fixtures;
  /** Every outcome of the interface so far, in order. */
  readonly observations: readonly Observation[];
  /** The push receiver of the run, or why there is none. */
  receiver(): Promise<PushReceiver | Unavailable>;
}

let sequence = 0;

/** A fresh message id; `prefix` follows the conformance suites' convention where it is given. */
export function messageId(prefix = 'tandem-check'): string {
  sequence++;
  return `${prefix}-${sequence}-${crypto.randomUUID()}`;
}

/** The text of the messages the checker sends: `--message`, else a skill example, else hello. */
export function messageText(context: {
  readonly options: CheckOptions;
  readonly view: CardView;
}): string {
  return context.options.message ?? context.view.examples[0] ?? 'hello';
}

/** A user message of the checker's text. */
export function userMessage(
  context: { readonly options: CheckOptions; readonly view: CardView },
  fields: { readonly prefix?: string; readonly taskId?: string; readonly contextId?: string } = {},
): Message {
  return {
    messageId: messageId(fields.prefix),
    role: 'ROLE_USER',
    parts: [{ text: messageText(context) }],
    ...(fields.taskId === undefined ? {} : { taskId: fields.taskId }),
    ...(fields.contextId === undefined ? {} : { contextId: fields.contextId }),
  };
}

/** An id no agent holds a task under. */
export function unknownTaskId(): string {
  return `tandem-check-unknown-${crypto.randomUUID()}`;
}
