/**
 * gRPC 0.3 (`--compat 0.3`): `a2a.v1.A2AService` of the 0.3 proto, served on the gRPC port beside
 * `lf.a2a.v1.A2AService` by the same gRPC service implementation (authentication, call pipeline,
 * status mapping, streams). Only the codecs differ: each 0.3 request is decoded from its binary
 * form to the ProtoJSON of the 0.3 proto (protobuf-es, code from `scripts/generate-grpc.mjs`),
 * read into the kind-tagged params of its 0.3 method as HTTP+JSON 0.3 reads its bodies
 * (`v03-protojson.ts`), and translated to the 1.0 request (`v03-requests.ts`); each 1.0 result
 * and event goes back the same way. So the three 0.3 doors share one translation.
 *
 * Errors are the gRPC status codes of the 1.0 mapping, which the 0.3 SDK's gRPC client reads
 * (NOT_FOUND, FAILED_PRECONDITION, UNIMPLEMENTED...). The calls are at 0.3 whatever their
 * `a2a-version` metadata says (0.3 clients send none).
 */

import type { DescMessage } from '@bufbuild/protobuf';
import { InvalidRequestError } from '../../protocol/errors.js';
import type { OperationName } from '../../protocol/operations.js';
import { GrpcEncodingError, type GrpcMessageCodec, type GrpcMethod } from '../grpc/grpc-codec.js';
import type { GrpcCompatService } from '../grpc/grpc-compat-service.js';
import { GRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { isObject, UntranslatableError } from './translate/untranslatable.js';
import { invalidParamsOf } from './translate/v03-errors.js';
import {
  createPushConfigFromBody,
  parsePushConfigName,
  sendParamsFromBody,
  streamEventToProto,
} from './translate/v03-protojson.js';
import { resultToProto } from './translate/v03-protojson-results.js';
import { requestFromV03 } from './translate/v03-requests.js';
import { resultToV03 } from './translate/v03-results.js';
import { streamEventToV03 } from './translate/v03-task.js';
import { V03_VERSION, type V03Method } from './translate/v03-types.js';
import {
  decodeV03,
  encodeV03,
  taskOfName,
  V03_GRPC_METHODS,
  V03_SERVICE_NAME,
  v03PathOf,
} from './v03-grpc-codec.js';

type Json = Record<string, unknown>;

/** Each 0.3 method: its 1.0 operation, its 0.3 JSON-RPC method and how its params are read. */
const METHODS: Readonly<
  Record<string, { operation: OperationName; v03: V03Method; params: (request: Json) => Json }>
> = {
  SendMessage: { operation: 'SendMessage', v03: 'message/send', params: sendParamsFromBody },
  SendStreamingMessage: {
    operation: 'SendStreamingMessage',
    v03: 'message/stream',
    params: sendParamsFromBody,
  },
  GetTask: {
    operation: 'GetTask',
    v03: 'tasks/get',
    params: (r) => ({
      id: taskOfName(r.name),
      ...(typeof r.historyLength === 'number' && r.historyLength !== 0
        ? { historyLength: r.historyLength }
        : {}),
    }),
  },
  CancelTask: {
    operation: 'CancelTask',
    v03: 'tasks/cancel',
    params: (r) => ({ id: taskOfName(r.name) }),
  },
  TaskSubscription: {
    operation: 'SubscribeToTask',
    v03: 'tasks/resubscribe',
    params: (r) => ({ id: taskOfName(r.name) }),
  },
  CreateTaskPushNotificationConfig: {
    operation: 'CreateTaskPushNotificationConfig',
    v03: 'tasks/pushNotificationConfig/set',
    params: (r) => createPushConfigFromBody(r, taskOfName(r.parent) ?? ''),
  },
  GetTaskPushNotificationConfig: {
    operation: 'GetTaskPushNotificationConfig',
    v03: 'tasks/pushNotificationConfig/get',
    params: (r) => {
      const named = parsePushConfigName(r.name);
      return { id: named?.taskId ?? taskOfName(r.name), pushNotificationConfigId: named?.id };
    },
  },
  ListTaskPushNotificationConfig: {
    operation: 'ListTaskPushNotificationConfigs',
    v03: 'tasks/pushNotificationConfig/list',
    params: (r) => ({ id: taskOfName(r.parent) }),
  },
  GetAgentCard: {
    operation: 'GetExtendedAgentCard',
    v03: 'agent/getAuthenticatedExtendedCard',
    params: () => ({}),
  },
  DeleteTaskPushNotificationConfig: {
    operation: 'DeleteTaskPushNotificationConfig',
    v03: 'tasks/pushNotificationConfig/delete',
    params: (r) => {
      const named = parsePushConfigName(r.name);
      return { id: named?.taskId, pushNotificationConfigId: named?.id };
    },
  },
};

/** A 0.3 request: binary → 0.3 ProtoJSON → kind-tagged params → the 1.0 request. */
class V03RequestCodec implements GrpcMessageCodec {
  constructor(
    readonly schema: DescMessage,
    readonly v03: V03Method,
    readonly params: (request: Json) => Json,
  ) {}

  get typeName(): string {
    return this.schema.typeName;
  }

  encode(): Uint8Array {
    throw new GrpcEncodingError(`${this.schema.typeName} is only read by the server`);
  }

  decode(bytes: Uint8Array): unknown {
    const value = decodeV03(this.schema, bytes);
    try {
      return requestFromV03(this.v03, this.params(isObject(value) ? value : {}), '');
    } catch (error) {
      if (error instanceof UntranslatableError) throw invalidParamsOf(error);
      throw error;
    }
  }
}

/** A 0.3 response: the 1.0 result (or event) → kind-tagged 0.3 → 0.3 ProtoJSON → binary. */
class V03ResponseCodec implements GrpcMessageCodec {
  constructor(
    readonly schema: DescMessage,
    readonly toProto: (value: unknown) => unknown,
  ) {}

  get typeName(): string {
    return this.schema.typeName;
  }

  encode(value: unknown): Uint8Array {
    return encodeV03(this.schema, this.toProto(value) ?? {});
  }

  decode(): unknown {
    throw new InvalidRequestError(`${this.schema.typeName} is only written by the server`);
  }
}

function methodsOf(): GrpcMethod[] {
  return V03_GRPC_METHODS.map((method) => {
    const entry = METHODS[method.name];
    if (entry === undefined) {
      throw new InvalidRequestError(`${V03_SERVICE_NAME}.${method.name} has no translation`);
    }
    const streaming = method.methodKind === 'server_streaming';
    const { operation } = entry;
    const toProto = streaming
      ? (event: unknown) => streamEventToProto(streamEventToV03(event as never))
      : (result: unknown) => resultToProto(operation, resultToV03(operation, result));
    return {
      operation,
      path: v03PathOf(method),
      streaming,
      request: new V03RequestCodec(method.input, entry.v03, entry.params),
      response: new V03ResponseCodec(method.output, toProto),
      protocolVersion: V03_VERSION,
    };
  });
}

/** `a2a.v1.A2AService` of A2A 0.3: what `compatV03()` serves on a gRPC listener. */
export function v03GrpcService(): GrpcCompatService {
  return { binding: GRPC_BINDING, methods: methodsOf(), protocolVersion: V03_VERSION };
}
