/**
 * What a version of the protocol changes in the gRPC client transport (`grpc-client-transport.ts`),
 * as `JsonRpcDialect` and `RestDialect` do for the other two: the service's methods and their
 * codecs, the metadata, and how errors, results and events are read back into 1.0. The 1.0
 * dialect is here; the 0.3 one is `v0_3/v03-grpc-client-transport.ts`.
 */

import { fromGrpcStatus } from '../../protocol/error-serialization.js';
import type { A2AError } from '../../protocol/errors.js';
import type { OperationName } from '../../protocol/operations.js';
import { grpcMethodOf, type GrpcMessageCodec } from './grpc-codec.js';
import type { DecodedStatus } from './grpc-status.js';

/** A method as a client calls it: its path, how a request is written, how an answer is read. */
export interface GrpcClientMethod {
  /** The HTTP/2 path: `/lf.a2a.v1.A2AService/SendMessage`. */
  readonly path: string;
  /** Writes the call's 1.0 request. @throws a typed error for one it cannot write (nothing is sent). */
  readonly request: Pick<GrpcMessageCodec, 'encode'>;
  /** Reads a response, or a stream's event, into the value `resultOf` / `eventOf` read. */
  readonly response: Pick<GrpcMessageCodec, 'decode'>;
}

/**
 * What a version of the protocol changes in the gRPC transport: the service's methods and
 * codecs, the metadata, and how errors, results and events are read back into 1.0. Channels,
 * calls, streams, resume ids, size limits and the validation of what comes back are the
 * transport's, whatever the dialect.
 */
export interface GrpcDialect {
  /** The method of an operation. @throws a typed A2A error for one the dialect has not (nothing is sent). */
  methodOf(operation: OperationName): GrpcClientMethod;
  /** Edits the headers every call sends as metadata. */
  editHeaders(headers: Headers): void;
  /** The typed error of a failed call's status; `undefined` when it is no A2A error. */
  errorOf(operation: OperationName, code: number, status: DecodedStatus): A2AError | undefined;
  /** A decoded result in the 1.0 shape of the operation's response, to be validated as such. */
  resultOf(operation: OperationName, value: unknown, where: string): unknown;
  /**
   * A decoded event as the 1.0 `StreamResponse` (to be validated), or `undefined` to skip it;
   * `final` ends the stream after it.
   */
  eventOf(
    value: unknown,
    where: string,
  ): { readonly payload: unknown; readonly final: boolean } | undefined;
}

/** A2A 1.0: `lf.a2a.v1.A2AService`, its answers already in the 1.0 shape. */
export const A2A_GRPC: GrpcDialect = {
  methodOf: grpcMethodOf,
  editHeaders: () => undefined,
  errorOf: (_operation, code, status) => fromGrpcStatus(code, status.message, status.details),
  resultOf: (_operation, value) => value,
  eventOf: (value) => ({ payload: value, final: false }),
};
