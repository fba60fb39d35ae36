/**
 * The options only the gRPC listener has, and their resolution: checked when the server is
 * created, before grpc-js is loaded (`createA2AServer` loads it only when the listener starts).
 * No grpc-js import here, so that checking them costs nothing.
 */

import type { ServerInterceptor as GrpcServerInterceptor } from '@grpc/grpc-js';
import { integerOption } from '../../protocol/integer-option.js';
import type { GrpcTlsOptions } from './grpc-credentials.js';

/** What only the gRPC listener has. */
export interface GrpcOptions {
  /** Serve TLS instead of plaintext. */
  readonly tls?: GrpcTlsOptions | undefined;
  /** Largest accepted request message, in bytes. Default 4 MiB, as for HTTP bodies. */
  readonly maxMessageBytes?: number | undefined;
  /** Serve `grpc.health.v1.Health`. Default true. */
  readonly health?: boolean | undefined;
  /** Serve server reflection (v1 and v1alpha). Default true. */
  readonly reflection?: boolean | undefined;
  /**
   * The host clients reach the port at, for interface URLs. Default: the host of `publicUrl`, else
   * of the URL the card is served under (and for an extended card fetched over gRPC, the call's
   * `:authority`).
   */
  readonly publicHost?: string | undefined;
  /** grpc-js server interceptors around every call, at the transport (below the A2A call). */
  readonly grpcInterceptors?: readonly GrpcServerInterceptor[] | undefined;
}

/** gRPC's own options with defaults applied and values checked. */
export interface ResolvedGrpcOptions {
  readonly tls: GrpcTlsOptions | undefined;
  readonly maxMessageBytes: number;
  readonly health: boolean;
  readonly reflection: boolean;
  readonly publicHost: string | undefined;
  readonly grpcInterceptors: readonly GrpcServerInterceptor[];
}

const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Applies defaults and checks gRPC's own options.
 *
 * @throws ConfigurationError naming the offending option.
 */
export function resolveGrpcOptions(options: GrpcOptions): ResolvedGrpcOptions {
  return {
    tls: options.tls,
    maxMessageBytes: integerOption(
      'maxMessageBytes',
      options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      1,
      'bytes',
    ),
    health: options.health ?? true,
    reflection: options.reflection ?? true,
    publicHost: options.publicHost,
    grpcInterceptors: options.grpcInterceptors ?? [],
  };
}
