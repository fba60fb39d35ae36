/**
 * What a check is given. An agent check sees the card as found; an interface check sees the
 * probe of its interface, the card as the run reads it, the fixtures (tasks made once per
 * interface and shared by the checks that need them), and every outcome the interface has
 * produced so far — the binding and error checks judge those, so that each error is weighed
 * wherever the run met it.
 */

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

export { messageId, messageText, unknownTaskId, userMessage } from './check-messages.js';
