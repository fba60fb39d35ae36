/**
 * What a compat layer serves on the gRPC port beside `lf.a2a.v1.A2AService` (for 0.3,
 * `a2a.v1.A2AService`): its methods, each translating to and from its 1.0 operation in its codecs,
 * through the same service implementation (authentication, the call pipeline, statuses, streams).
 * The layer hands it over as an opaque `CompatService`; the listener checks it is this.
 */

import { GRPC_BINDING } from '../../protocol/protocol-bindings.js';
import type { CompatService } from '../server/compat-layer.js';
import type { GrpcMethod } from './grpc-codec.js';

/** A translating service beside the 1.0 one. */
export interface GrpcCompatService extends CompatService {
  readonly binding: typeof GRPC_BINDING;
  /** Its methods, each translating to and from its 1.0 operation in its codecs. */
  readonly methods: readonly GrpcMethod[];
}

/** Whether a compat layer's service is one for the gRPC listener. */
export function isGrpcCompatService(
  service: CompatService | undefined,
): service is GrpcCompatService {
  return (
    service !== undefined &&
    service.binding === GRPC_BINDING &&
    Array.isArray((service as Partial<GrpcCompatService>).methods)
  );
}
