/**
 * The one place where protobuf messages meet the protocol types: every request and response of
 * `lf.a2a.v1.A2AService` in its binary form (spec 10.1) to and from the ProtoJSON values the
 * rest of Tandem works with (`protocol/generated/types.ts`), through the code protoc-gen-es
 * generated from the same proto (`generated/`, `scripts/generate-grpc.mjs`).
 *
 * Going through ProtoJSON keeps the gRPC binding on the same validators, call pipeline and
 * runtime as JSON-RPC and HTTP+JSON, so that the three doors are one agent (spec 5.1): a decoded
 * request is checked by `parseRequest` exactly like a JSON body, and every response is the value
 * the other bindings serialize as JSON. A proto3 field left at its default (an empty `tenant`, a
 * zero enum) is absent in ProtoJSON, which is what the validators expect of an unset field.
 *
 * Codecs are built once per method when the module loads, from the generated descriptors; no
 * reflection happens per call.
 */

import {
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescMessage,
  type JsonValue as ProtobufJsonValue,
} from '@bufbuild/protobuf';
import { InvalidRequestError } from '../../protocol/errors.js';
import { ConfigurationError } from '../../protocol/local-errors.js';
import { OPERATION_NAMES, isOperationName, type OperationName } from '../../protocol/operations.js';
import { A2AService } from './generated/a2a_pb.js';
import { implicitDefaultsOf } from './implicit-defaults.js';

/** The fully-qualified name of the service (spec 10.3). */
export const A2A_SERVICE_NAME = A2AService.typeName;

/** Why a message could not be encoded: the value does not fit its proto message. */
export class GrpcEncodingError extends Error {
  override readonly name = 'GrpcEncodingError';
}

/** A message type in its binary form and the value the call pipeline works with. */
export interface GrpcMessageCodec {
  /** The fully-qualified message name. */
  readonly typeName: string;
  /** The binary form of a value. @throws GrpcEncodingError when it does not fit. */
  encode(value: unknown): Uint8Array;
  /** The value of a binary message. @throws an A2A error the call is answered with. */
  decode(bytes: Uint8Array): unknown;
}

/** A message type in both forms. */
export class ProtoJsonCodec implements GrpcMessageCodec {
  readonly #schema: DescMessage;
  readonly #restore: ((value: Record<string, unknown>) => void) | undefined;

  constructor(schema: DescMessage) {
    this.#schema = schema;
    this.#restore = implicitDefaultsOf(schema.name);
  }

  /** The fully-qualified message name (`lf.a2a.v1.Task`). */
  get typeName(): string {
    return this.#schema.typeName;
  }

  /**
   * The binary form of a ProtoJSON value.
   *
   * @throws GrpcEncodingError when the value does not fit the message (a server bug: the runtime
   *   only hands out valid protocol values).
   */
  encode(value: unknown): Uint8Array {
    try {
      return toBinary(this.#schema, fromJson(this.#schema, value as ProtobufJsonValue));
    } catch (error) {
      throw new GrpcEncodingError(
        `Cannot encode ${this.#schema.typeName}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * The ProtoJSON value of a binary message (lowerCamelCase names, enum names, RFC 3339
   * timestamps, base64 bytes); fields at their proto3 default are left out, except the required
   * ones that are valid at their default (`implicit-defaults.ts`).
   *
   * @throws InvalidRequestError when the bytes are no such message (malformed wire format,
   *   strings that are not UTF-8): a request the server answers `INVALID_ARGUMENT`.
   */
  decode(bytes: Uint8Array): unknown {
    let value: unknown;
    try {
      value = toJson(this.#schema, fromBinary(this.#schema, bytes));
    } catch (error) {
      const reason = error instanceof Error ? `: ${error.message}` : '';
      throw new InvalidRequestError(`The message is not a valid ${this.#schema.typeName}${reason}`);
    }
    if (this.#restore !== undefined && typeof value === 'object' && value !== null) {
      this.#restore(value as Record<string, unknown>);
    }
    return value;
  }
}

/** One method of the service. */
export interface GrpcMethod {
  readonly operation: OperationName;
  /** The HTTP/2 path of the method: `/lf.a2a.v1.A2AService/SendMessage`. */
  readonly path: string;
  /** Whether it answers with a server stream. */
  readonly streaming: boolean;
  readonly request: GrpcMessageCodec;
  /** The response; of a streaming method, each event's (`StreamResponse`). */
  readonly response: GrpcMessageCodec;
  /**
   * The protocol version every call of the method is at, for a service of an older version
   * (0.3 clients send no `a2a-version`); by default the call's `a2a-version` is negotiated.
   */
  readonly protocolVersion?: string | undefined;
}

function methodsOf(): ReadonlyMap<OperationName, GrpcMethod> {
  const methods = new Map<OperationName, GrpcMethod>();
  for (const method of A2AService.methods) {
    if (!isOperationName(method.name)) {
      throw new ConfigurationError(
        `${A2A_SERVICE_NAME}.${method.name} is not an operation of protocol/operations.ts; run npm run generate`,
      );
    }
    methods.set(method.name, {
      operation: method.name,
      path: `/${A2A_SERVICE_NAME}/${method.name}`,
      streaming: method.methodKind === 'server_streaming',
      request: new ProtoJsonCodec(method.input),
      response: new ProtoJsonCodec(method.output),
    });
  }
  const missing = OPERATION_NAMES.filter((name) => !methods.has(name));
  if (missing.length > 0) {
    throw new ConfigurationError(
      `The generated gRPC service lacks ${missing.join(', ')}; run node scripts/generate-grpc.mjs`,
    );
  }
  return methods;
}

/** Every method of `lf.a2a.v1.A2AService`, by operation, in the order of the proto. */
export const GRPC_METHODS: ReadonlyMap<OperationName, GrpcMethod> = methodsOf();

/** The method of an operation. */
export function grpcMethodOf(operation: OperationName): GrpcMethod {
  return GRPC_METHODS.get(operation) as GrpcMethod;
}
