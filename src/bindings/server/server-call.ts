/**
 * The call pipeline every server binding shares, so that the three doors are one agent (spec 5.1):
 * a binding decodes its wire format and then, for every operation,
 * 1. opens the call ({@link prepareCall}, `prepare-call.ts`): the protocol version first, then the
 *    request message validated ({@link parseRequest}), the tenant, the resume position, and the
 *    extension negotiation of spec 3.3.4 — which gives the {@link ServerCall};
 * 2. invokes the agent's chain (`agent-endpoint.ts`): the server's interceptors, its limits, then
 *    the operation table (`operation-table.ts`);
 * 3. maps whatever was thrown to what it answers: a refusal (`refusals.ts`: authentication, a
 *    limit) in the binding's form of one, anything else as the wire error it stands for
 *    ({@link wireErrorOf}): A2A errors as they are, anything else as `InternalError`, logged and
 *    never described to the client.
 * Only the framing — envelopes, status codes, where the parameters come from — differs per binding.
 */

import { InternalError, isA2AError, type A2AError } from '../../protocol/errors.js';
import type { OperationName } from '../../protocol/operations.js';
import type { Logger } from '../../runtime/logger.js';
import type { StreamingOperation } from './server-interceptor.js';

export { negotiateVersion, readVersionParameter } from './service-parameters.js';
export type { ServerCall, StreamingOperation, UnaryOperation } from './server-interceptor.js';
export { parseRequest, prepareCall } from './prepare-call.js';

/** Whether an operation answers with a stream (narrowing). */
export function isStreaming(operation: OperationName): operation is StreamingOperation {
  return operation === 'SendStreamingMessage' || operation === 'SubscribeToTask';
}

/**
 * The wire error a thrown value is answered with: an A2A error as it is; anything else is a bug or
 * an outage the client must not learn details of — logged with its stack, answered `InternalError`.
 */
export function wireErrorOf(
  error: unknown,
  logger: Logger,
  context: { readonly binding: string; readonly operation?: string | undefined },
): A2AError {
  if (isA2AError(error)) return error;
  logger.error(
    { err: error, binding: context.binding, operation: context.operation },
    'unexpected error while handling a request',
  );
  return new InternalError();
}
