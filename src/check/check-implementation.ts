/**
 * The code of a check, found by the id of its catalogue entry. Agent checks judge the card once;
 * interface checks run once per interface they apply to, in catalogue order (the binding and
 * error checks last, over what the others elicited).
 */

import type { AgentCheckContext, InterfaceCheckContext } from './check-context.js';
import type { Verdict } from './verdict.js';

/** A check of the agent card. */
export interface AgentCheck {
  readonly id: string;
  run(context: AgentCheckContext): Promise<Verdict> | Verdict;
}

/** A check of one interface. */
export interface InterfaceCheck {
  readonly id: string;
  run(context: InterfaceCheckContext): Promise<Verdict> | Verdict;
}
