/**
 * The gRPC binding's own rules (spec 10.2, 10.6): an error's `google.rpc.Status` travels in
 * `grpc-status-details-bin`, decodes, and agrees with the status it details; service parameters
 * are read from metadata, where an extension the agent does not know is ignored (spec 4.6.3).
 */

import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId } from '../check-context.js';
import { GrpcProbe } from '../probe/grpc-probe.js';
import { describeError, isErrorOfType } from '../probe/wire-error.js';
import { describeOutcome, fail, pass, skip } from '../verdict.js';

/** Status codes that stand for A2A-specific errors and so must carry their ErrorInfo. */
const A2A_CODES = new Set([5, 9]);

const errorDetails: InterfaceCheck = {
  id: 'grpc.error-details',
  run({ probe }) {
    if (!(probe instanceof GrpcProbe)) return skip('not a gRPC interface');
    const notes = probe.statusNotes.filter((n) => n.error.refusal === undefined);
    if (notes.length === 0) return skip('the run elicited no error');
    const bad = notes.find(
      (n) =>
        n.problem !== undefined &&
        (A2A_CODES.has(n.error.grpcCode ?? -1) || !n.problem.startsWith('the status has no')),
    );
    return bad === undefined
      ? pass(
          `${notes.length} error status(es); each A2A one details itself in grpc-status-details-bin`,
          notes[0]?.exchange,
        )
      : fail(`${bad.error.code}: ${bad.problem ?? ''}`, bad.exchange);
  },
};

const metadata: InterfaceCheck = {
  id: 'grpc.metadata',
  async run({ probe }) {
    if (!(probe instanceof GrpcProbe)) return skip('not a gRPC interface');
    const outcome = await probe.call(
      'GetTask',
      { id: unknownTaskId() },
      { headers: { 'a2a-extensions': 'https://tandem-check.invalid/extensions/unknown/v1' } },
    );
    return outcome.kind === 'error' && isErrorOfType(outcome.error, 'TaskNotFoundError')
      ? pass(
          `a2a-version read from metadata, an unknown a2a-extensions URI ignored: ${describeError(outcome.error)}`,
          outcome.exchange,
        )
      : fail(
          `GetTask with an unknown extension in metadata: expected TaskNotFoundError, the agent ${describeOutcome(outcome)}`,
          outcome.exchange,
        );
  },
};

/** The checks of this binding. */
export const GRPC_RULES: readonly InterfaceCheck[] = [errorDetails, metadata];
