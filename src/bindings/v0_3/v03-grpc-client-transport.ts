/**
 * gRPC 0.3, client half: the transport the client uses for a `GRPC` interface at protocol version
 * 0.3. It is the gRPC transport with a 0.3 dialect, as the JSON-RPC and HTTP+JSON 0.3 transports
 * are theirs: each 1.0 call is written as its 0.3 method's params (`v03-requests.ts`), then as the
 * 0.3 proto's request message of the method of `a2a.v1.A2AService` (`v03-grpc-codec.ts`; the
 * ProtoJSON shapes are those HTTP+JSON 0.3 sends, `v03-protojson.ts`); each answer is read back
 * the same way into 1.0 and validated like a 1.0 answer. A 0.3 event with `final: true` ends the
 * stream. Same channel, TLS, metadata, resume ids (`a2a-first-event-id`, `last-event-id`) and
 * size limits as the 1.0 transport; no `a2a-version` metadata (0.3 clients send none), extensions
 * in `x-a2a-extensions` as well as `a2a-extensions`.
 *
 * Errors: a status with A2A details (a Tandem agent's) is read as for 1.0. A bare status (the
 * official 0.3 SDKs write only a code and a message) is read as those SDKs' clients read it:
 * `NOT_FOUND` is `TaskNotFoundError`; `FAILED_PRECONDITION` is `TaskNotCancelableError` for
 * `CancelTask` and `ExtendedAgentCardNotConfiguredError` for the card; `UNIMPLEMENTED` is
 * `PushNotificationNotSupportedError` for the push config methods and `UnsupportedOperationError`
 * for the card and `SubscribeToTask`; other codes as for 1.0 (`INVALID_ARGUMENT` an
 * `InvalidRequestError`...) or, when no A2A error, a `GrpcStatusError`.
 *
 * Rules where the 0.3 proto says less than 1.0 (docs/compat-0.3.md): `ListTasks` has no 0.3
 * method and fails with `UnsupportedOperationError` without a request; `CancelTask` metadata has
 * no field in the 0.3 `CancelTaskRequest` and fails with `UntranslatableError` (nothing is sent)
 * rather than being dropped.
 *
 * Loaded only when a card selects it (`client/legacy-transports.ts`), like the 1.0 gRPC transport.
 */

import type { DescMethod } from '@bufbuild/protobuf';
import { fromGrpcStatus } from '../../protocol/error-serialization.js';
import type { A2AErrorType } from '../../protocol/error-codes.js';
import { createA2AError, UnsupportedOperationError, type A2AError } from '../../protocol/errors.js';
import type { OperationName } from '../../protocol/operations.js';
import { EXTENSIONS_HEADER, VERSION_HEADER } from '../../protocol/extensions-header.js';
import type { ClientTransport, ClientTransportContext } from '../client/client-transport.js';
import { V03_GRPC_TENANT_METADATA } from '../../protocol/v03-grpc-tenant.js';
import type { GrpcClientMethod, GrpcDialect } from '../grpc/grpc-client-dialect.js';
import { createGrpcDialectTransport } from '../grpc/grpc-client-transport.js';
import { GrpcCode, type DecodedStatus } from '../grpc/grpc-status.js';
import { isObject, translate } from './translate/untranslatable.js';
import {
  pushConfigName,
  sendParamsToProto,
  streamEventFromProto,
  taskPushConfigToProto,
} from './translate/v03-protojson.js';
import { resultFromProto } from './translate/v03-protojson-results.js';
import { requestToV03 } from './translate/v03-requests.js';
import { resultFromV03 } from './translate/v03-results.js';
import { streamEventFromV03 } from './translate/v03-task.js';
import { translated } from './v03-client-read.js';
import { decodeV03, encodeV03, taskName, v03MethodOf, v03PathOf } from './v03-grpc-codec.js';

type Json = Record<string, unknown>;

function present(value: Json): Json {
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined && member !== '') out[key] = member;
  }
  return out;
}

/** The kind-tagged 0.3 params of an operation as the ProtoJSON of its 0.3 request message. */
function requestToProto(operation: OperationName, params: Json): Json {
  switch (operation) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return sendParamsToProto(params) as Json;
    case 'GetTask':
      return present({ name: taskName(params.id), historyLength: params.historyLength });
    case 'CancelTask':
      translate('The 1.0 CancelTask request', (issues) => {
        const metadata = params.metadata;
        if (isObject(metadata) && Object.keys(metadata).length > 0) {
          issues.add(
            'metadata',
            'the A2A 0.3 gRPC CancelTaskRequest has no metadata, so this agent cannot receive it; send none',
          );
        }
      });
      return { name: taskName(params.id) };
    case 'SubscribeToTask':
      return { name: taskName(params.id) };
    case 'CreateTaskPushNotificationConfig': {
      // The proto's CreateTaskPushNotificationConfigRequest, as HTTP+JSON 0.3 sends it.
      const config = taskPushConfigToProto(params) as Json;
      const inner = isObject(params.pushNotificationConfig) ? params.pushNotificationConfig : {};
      const id = typeof inner.id === 'string' ? inner.id : '';
      return {
        parent: taskName(params.taskId),
        ...(id === '' ? {} : { configId: id }),
        config: id === '' ? { pushNotificationConfig: config.pushNotificationConfig } : config,
      };
    }
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { name: pushConfigName(String(params.id), String(params.pushNotificationConfigId)) };
    case 'ListTaskPushNotificationConfigs':
      return { parent: taskName(params.id) };
    default:
      return {};
  }
}

/** The method of an operation, its 1.0 request written as the 0.3 request message. */
function methodOf(operation: OperationName): GrpcClientMethod {
  const method: DescMethod | undefined = v03MethodOf(operation);
  if (method === undefined) {
    throw new UnsupportedOperationError(
      `${operation} has no A2A 0.3 gRPC method; this agent speaks only 0.3`,
    );
  }
  return {
    path: v03PathOf(method),
    request: {
      encode: (request: unknown) =>
        encodeV03(
          method.input,
          requestToProto(operation, requestToV03(operation, request as never) as Json),
        ),
    },
    response: { decode: (bytes: Uint8Array) => decodeV03(method.output, bytes) },
  };
}

const PUSH_OPERATIONS: ReadonlySet<OperationName> = new Set([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

/** The error a bare 0.3 status stands for, as the 0.3 SDKs' gRPC clients read it. */
function v03TypeOf(operation: OperationName, code: number): A2AErrorType | undefined {
  switch (code) {
    case GrpcCode.NOT_FOUND:
      return operation === 'GetExtendedAgentCard' ? undefined : 'TaskNotFoundError';
    case GrpcCode.FAILED_PRECONDITION:
      if (operation === 'CancelTask') return 'TaskNotCancelableError';
      if (operation === 'GetExtendedAgentCard') return 'ExtendedAgentCardNotConfiguredError';
      return undefined;
    case GrpcCode.UNIMPLEMENTED:
      if (PUSH_OPERATIONS.has(operation)) return 'PushNotificationNotSupportedError';
      if (operation === 'GetExtendedAgentCard' || operation === 'SubscribeToTask') {
        return 'UnsupportedOperationError';
      }
      return undefined;
    default:
      return undefined;
  }
}

function errorOf(
  operation: OperationName,
  code: number,
  status: DecodedStatus,
): A2AError | undefined {
  if (status.details.length > 0) {
    const typed = fromGrpcStatus(code, status.message, status.details);
    if (typed !== undefined) return typed;
  }
  const type = v03TypeOf(operation, code);
  return type === undefined
    ? fromGrpcStatus(code, status.message, status.details)
    : createA2AError(type, status.message);
}

/** A2A 0.3 over the gRPC transport, to the interface of `tenant` (`''`: none). */
const v03GrpcDialect = (tenant: string): GrpcDialect => ({
  methodOf,
  editHeaders(headers) {
    headers.delete(VERSION_HEADER);
    const extensions = headers.get(EXTENSIONS_HEADER);
    if (extensions !== null) headers.set('X-A2A-Extensions', extensions);
    // The 0.3 messages have no tenant field: it routes the call as metadata instead.
    if (tenant !== '') headers.set(V03_GRPC_TENANT_METADATA, tenant);
  },
  errorOf,
  resultOf: (operation, value, where) =>
    translated(where, () => resultFromV03(operation, resultFromProto(operation, value))),
  eventOf(value, where) {
    const read = translated(where, () =>
      translate('An A2A 0.3 event', (issues) =>
        streamEventFromV03(streamEventFromProto(value), 'event', issues),
      ),
    );
    return read === undefined ? undefined : { payload: read.event, final: read.final };
  },
});

/**
 * Creates the gRPC 0.3 transport of an interface (a `ClientTransportFactory`); the interface's
 * tenant goes with every call as `a2a-tenant` metadata (`protocol/v03-grpc-tenant.ts`).
 */
export function createV03GrpcClientTransport(context: ClientTransportContext): ClientTransport {
  return createGrpcDialectTransport(context, v03GrpcDialect(context.agentInterface.tenant ?? ''));
}
