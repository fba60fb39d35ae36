/**
 * The wire codec of gRPC 0.3, shared by both halves of the binding (the service of
 * `v03-grpc-service.ts`, the client transport of `v03-grpc-client-transport.ts`): the methods of
 * `a2a.v1.A2AService` of the 0.3 proto by 1.0 operation, the binary form of their messages to and
 * from the ProtoJSON of the 0.3 proto (protobuf-es, code from `scripts/generate-grpc.mjs`), and
 * the `tasks/{id}` resource names its requests carry. What the ProtoJSON means in kind-tagged 0.3
 * and then in 1.0 is the translate layer's (`translate/`); this file knows only the proto.
 *
 * Free of server and client code, like the 1.0 codec (`grpc/grpc-codec.ts`).
 */

import {
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescMessage,
  type DescMethod,
  type JsonValue as ProtobufJsonValue,
} from '@bufbuild/protobuf';
import { InvalidRequestError } from '../../protocol/errors.js';
import type { OperationName } from '../../protocol/operations.js';
import { GrpcEncodingError } from '../grpc/grpc-codec.js';
import { A2AService } from '../grpc/generated/v0_3/a2a_pb.js';

/** The fully-qualified name of the 0.3 service. */
export const V03_SERVICE_NAME = A2AService.typeName;

/**
 * The 0.3 method of each 1.0 operation that has one; `ListTasks` has none (0.3 lists no tasks).
 * The names differ where 1.0 renamed them (`TaskSubscription`, `GetAgentCard`, the singular
 * `ListTaskPushNotificationConfig`).
 */
export const V03_METHOD_NAMES: Readonly<Partial<Record<OperationName, string>>> = {
  SendMessage: 'SendMessage',
  SendStreamingMessage: 'SendStreamingMessage',
  GetTask: 'GetTask',
  CancelTask: 'CancelTask',
  SubscribeToTask: 'TaskSubscription',
  CreateTaskPushNotificationConfig: 'CreateTaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'GetTaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfig',
  DeleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfig',
  GetExtendedAgentCard: 'GetAgentCard',
};

/** Every method of the 0.3 service, in the order of the proto. */
export const V03_GRPC_METHODS: readonly DescMethod[] = A2AService.methods;

/** The 0.3 method of an operation; `undefined` when 0.3 has none. */
export function v03MethodOf(operation: OperationName): DescMethod | undefined {
  const name = V03_METHOD_NAMES[operation];
  return name === undefined ? undefined : V03_GRPC_METHODS.find((m) => m.name === name);
}

/** The HTTP/2 path of a 0.3 method: `/a2a.v1.A2AService/TaskSubscription`. */
export function v03PathOf(method: DescMethod): string {
  return `/${V03_SERVICE_NAME}/${method.name}`;
}

/**
 * The binary form of a 0.3 ProtoJSON value.
 *
 * @throws GrpcEncodingError when the value does not fit the message.
 */
export function encodeV03(schema: DescMessage, value: unknown): Uint8Array {
  try {
    return toBinary(schema, fromJson(schema, value as ProtobufJsonValue));
  } catch (error) {
    throw new GrpcEncodingError(
      `Cannot encode ${schema.typeName}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * The 0.3 ProtoJSON of a binary message (fields at their proto3 default left out).
 *
 * @throws InvalidRequestError when the bytes are no such message; a client reads it as the
 *   agent's protocol violation.
 */
export function decodeV03(schema: DescMessage, bytes: Uint8Array): unknown {
  try {
    return toJson(schema, fromBinary(schema, bytes));
  } catch (error) {
    const reason = error instanceof Error ? `: ${error.message}` : '';
    throw new InvalidRequestError(`The message is not a valid ${schema.typeName}${reason}`);
  }
}

/** The resource name of a task, as 0.3 requests carry it. */
export function taskName(id: unknown): string {
  return `tasks/${String(id)}`;
}

/** The task id of a `tasks/{id}` resource name (or of a longer one below it). */
export function taskOfName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const match = /^tasks\/([^/]+)/.exec(name);
  return match === null ? undefined : match[1];
}
