/**
 * The seam of a translation layer for clients of an older protocol version (`compatV03()` of
 * `bindings/v0_3/`): it may add to or wrap the bindings mounted for each agent, serve the card at
 * further well-known paths, and add its own fields to the card as served. The HTTP core applies
 * it when configured and is otherwise unchanged, so that a server without it answers exactly as
 * before.
 */

import type { AgentCard } from '../../protocol/generated/types.js';
import type { BindingContext, ServerBinding } from './server-binding.js';

/** A translation layer mounted beside the 1.0 bindings. */
export interface CompatLayer {
  /** The bindings to mount for one agent, from those configured (already created). */
  readonly mount: (bindings: readonly ServerBinding[], context: BindingContext) => ServerBinding[];
  /** Further paths below the agent's where its card is served (`/.well-known/agent.json`). */
  readonly cardPaths: readonly string[];
  /** The card as served, from the 1.0 card (validated and signed already). */
  readonly present: (card: AgentCard) => AgentCard;
}

/** The protocol versions `compat` accepts (`tandem serve --compat`). */
export const COMPAT_VERSIONS = ['0.3'] as const;
