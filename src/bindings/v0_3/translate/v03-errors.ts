/**
 * Errors between 0.3 and 1.0. The codes are the same on both sides: 0.3 defines -32001 to -32007
 * and the JSON-RPC standard codes, and lets servers define more in -32000 to -32099, where 1.0's
 * -32008 (ExtensionSupportRequired) and -32009 (VersionNotSupported) fall; the 0.3
 * `AuthenticatedExtendedCardNotConfiguredError` is 1.0's `ExtendedAgentCardNotConfiguredError`.
 * 0.3 leaves `data` free-form: written, it holds the 1.0 `google.rpc` details; read, anything but
 * such an array is kept whole as one `google.protobuf.Value` detail.
 */

import {
  fromJsonRpcError,
  toJsonRpcError,
  type JsonRpcErrorObject,
} from '../../../protocol/error-serialization.js';
import { InvalidParamsError, type A2AError } from '../../../protocol/errors.js';
import type { JsonValue } from '../../../protocol/json.js';
import type { UntranslatableError } from './untranslatable.js';

/** The `@type` of a 0.3 `data` value that is not a list of `google.rpc` details. */
export const V03_DATA_TYPE = 'type.googleapis.com/google.protobuf.Value';

/** A 1.0 error as the 0.3 JSON-RPC error object. */
export function errorToV03(error: A2AError): JsonRpcErrorObject {
  return toJsonRpcError(error);
}

/** A 0.3 error object as the typed 1.0 error; `undefined` for a code outside both sets. */
export function errorFromV03(object: JsonRpcErrorObject): A2AError | undefined {
  const data = object.data;
  const isDetails =
    Array.isArray(data) &&
    data.every(
      (d: unknown) =>
        typeof d === 'object' &&
        d !== null &&
        typeof (d as { '@type'?: unknown })['@type'] === 'string',
    );
  if (data === undefined || data === null || isDetails) return fromJsonRpcError(object);
  const error = fromJsonRpcError({ code: object.code, message: object.message });
  error?.details.push({ '@type': V03_DATA_TYPE, value: data as JsonValue });
  return error;
}

/** What a server answers for 0.3 params it cannot translate. */
export function invalidParamsOf(error: UntranslatableError): InvalidParamsError {
  return InvalidParamsError.fromViolations([...error.violations]);
}
