/**
 * The eleven operations of A2A (spec 3.1, 5.3) as a table every binding dispatches from, with
 * their request and response types.
 */

import { methodDescriptors } from './generated/descriptors.js';
import type { ServiceMethods } from './generated/types.js';

/** The name of an operation, as in the proto and the JSON-RPC method names (`SendMessage`). */
export type OperationName = keyof ServiceMethods;

/** The request message of an operation. */
export type OperationRequest<N extends OperationName> = ServiceMethods[N]['request'];

/** The response of an operation; for a streaming operation, the type of each event. */
export type OperationResponse<N extends OperationName> = ServiceMethods[N]['response'];

/** The operation table: request/response message names, streaming flag, HTTP+JSON mapping. */
export const operations = methodDescriptors;

/** Every operation name, in the order of the proto's service. */
export const OPERATION_NAMES = Object.keys(methodDescriptors) as OperationName[];

/** Narrows a string (e.g. a JSON-RPC `method`) to an operation name. */
export function isOperationName(name: string): name is OperationName {
  return Object.prototype.hasOwnProperty.call(methodDescriptors, name);
}

/** Whether an operation answers with a stream of events. */
export function isStreamingOperation(name: OperationName): boolean {
  return methodDescriptors[name].streaming;
}
