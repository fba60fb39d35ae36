/**
 * The seam of a translation layer for clients of an older protocol version (`compatV03()` of
 * `bindings/v0_3/`), given once to the server and applied on every listener: over HTTP it may add
 * to or wrap the bindings mounted for each agent, serve the card at further well-known paths, and
 * add its own fields to the card as served; a listener of its own (gRPC) asks it for the service
 * it serves there beside the 1.0 one. A server without it answers exactly as before.
 */

import type { AgentCard } from '../../protocol/generated/types.js';
import type { PushPayloadFormat } from '../../runtime/push-notifications.js';
import type { BindingContext, ServerBinding } from './server-binding.js';

/**
 * What a layer serves on a listener other than HTTP, in the shape that listener's binding defines
 * (gRPC: `GrpcCompatService`, its methods and codecs); opaque here, so that this seam depends on
 * no binding. The listener checks the shape it is given.
 */
export interface CompatService {
  /** The binding it is for (`GRPC`). */
  readonly binding: string;
  /** The `protocolVersion` of its interfaces (`0.3`). */
  readonly protocolVersion: string;
}

/** A translation layer served beside the 1.0 bindings. */
export interface CompatLayer {
  /** The older version it serves (`0.3`). */
  readonly version: string;
  /** The bindings to mount for one agent, from those configured (already created). */
  readonly mount: (bindings: readonly ServerBinding[], context: BindingContext) => ServerBinding[];
  /** Further paths below the agent's where its card is served (`/.well-known/agent.json`). */
  readonly cardPaths: readonly string[];
  /** The card as served, from the 1.0 card (validated and signed already). */
  readonly present: (card: AgentCard) => AgentCard;
  /**
   * The service it serves on a listener of `binding` (`GRPC`), loaded only when such a listener
   * starts (it is protobuf code); `undefined` for none.
   */
  readonly serviceFor?: ((binding: string) => Promise<CompatService | undefined>) | undefined;
  /**
   * The webhook payload of configs its clients create (0.3: the Task object); give the layer to
   * `createPushNotifier({ compat })` too, which renders their deliveries with it.
   */
  readonly pushPayloads?: PushPayloadFormat | undefined;
}

/** The protocol versions `compat` accepts (`tandem serve --compat`). */
export const COMPAT_VERSIONS = ['0.3'] as const;
