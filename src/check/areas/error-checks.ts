/**
 * Errors (spec 3.3.2, 5.4, 10.6, 11.6), judged over every error the run elicited on the
 * interface — so a defect shows however it was reached: the code of spec 5.4 on the binding
 * (JSON-RPC code, HTTP status, gRPC status), the `google.rpc.ErrorInfo` that names the type on
 * the bindings where several errors share a status, an `@type` on every detail, and a message.
 * Refusals made before the operation (401, 403, 429) are not A2A errors and are left out.
 */

import { errorReasonOf, grpcStatusCode } from '../../protocol/error-codes.js';
import { isBadRequestDetail, isErrorInfoDetail } from '../../protocol/error-details.js';
import type { InterfaceCheck } from '../check-implementation.js';
import type { InterfaceCheckContext } from '../check-context.js';
import { expectedCodeOf, hasCodeOfType, type WireError } from '../probe/wire-error.js';
import { fail, pass, skip } from '../verdict.js';
import type { Exchange } from '../wire/wire-exchange.js';

interface SeenError {
  readonly operation: string;
  readonly error: WireError;
  readonly exchange: Exchange;
}

function errorsOf(context: InterfaceCheckContext): SeenError[] {
  return context.observations.flatMap(({ operation, outcome }) =>
    outcome.kind === 'error' && outcome.error.refusal === undefined
      ? [{ operation, error: outcome.error, exchange: outcome.exchange }]
      : [],
  );
}

const NONE = 'the run elicited no error on this interface';

/** Reasons some agents give the JSON-RPC standard errors, which the spec gives none. */
const STANDARD_REASONS = new Set([
  'INVALID_PARAMS',
  'INVALID_REQUEST',
  'METHOD_NOT_FOUND',
  'INTERNAL',
  'INTERNAL_ERROR',
  'JSON_PARSE',
  'PARSE_ERROR',
]);

const code: InterfaceCheck = {
  id: 'error.code',
  run(context) {
    const errors = errorsOf(context);
    if (errors.length === 0) return skip(NONE);
    const typed = errors.filter((e) => e.error.type !== undefined);
    const wrong = typed.find((e) => !hasCodeOfType(e.error));
    if (wrong !== undefined) {
      const type = wrong.error.type as NonNullable<WireError['type']>;
      return fail(
        `${wrong.operation}: ${type} is answered ${wrong.error.code}, not ${expectedCodeOf(wrong.error.binding, type)}`,
        wrong.exchange,
      );
    }
    const types = [...new Set(typed.map((e) => e.error.type))].join(', ');
    return pass(
      `${errors.length} error(s)${types === '' ? '' : ` (${types})`}, each with its code`,
      errors[0]?.exchange,
    );
  },
};

/** Whether an error without ErrorInfo is excused: a standard error, named by its own form. */
function needsNoReason(error: WireError): boolean {
  if (error.details.some(isBadRequestDetail)) return true;
  if (error.type !== undefined && errorReasonOf(error.type) === undefined) return true;
  // A body that is no google.rpc.Status at all is rest.error-body's finding.
  if (error.binding === 'HTTP+JSON')
    return error.httpStatus === 500 || error.formProblems.length > 0;
  return [
    grpcStatusCode('INTERNAL'),
    grpcStatusCode('UNIMPLEMENTED'),
    grpcStatusCode('INVALID_ARGUMENT'),
  ].includes(error.grpcCode ?? -1);
}

const errorInfo: InterfaceCheck = {
  id: 'error.error-info',
  run(context) {
    const errors = errorsOf(context);
    if (errors.length === 0) return skip(NONE);
    const foreign = errors.find(
      (e) =>
        e.error.details.some((d) => isErrorInfoDetail(d) && d.domain !== 'a2a-protocol.org') &&
        e.error.reason === undefined,
    );
    if (foreign !== undefined)
      return fail(
        `${foreign.operation}: the ErrorInfo's domain is not a2a-protocol.org`,
        foreign.exchange,
      );
    const bare = errors.find((e) => e.error.reason === undefined && !needsNoReason(e.error));
    if (bare !== undefined) {
      return fail(
        `${bare.operation} answered ${bare.error.code} without a google.rpc.ErrorInfo naming the error (reason, domain a2a-protocol.org)`,
        bare.exchange,
      );
    }
    // A reason outside the A2A error types is fine on a standard error (the spec names none for
    // them); on another it leaves the client unable to tell which A2A error it is.
    const unknown = errors.find(
      (e) =>
        e.error.reason !== undefined &&
        e.error.type === undefined &&
        !STANDARD_REASONS.has(e.error.reason),
    );
    if (unknown !== undefined) {
      return fail(
        `${unknown.operation}: the ErrorInfo reason ${unknown.error.reason ?? ''} names no A2A error type`,
        unknown.exchange,
      );
    }
    return pass(`${errors.length} error(s); each A2A error names its reason`, errors[0]?.exchange);
  },
};

const details: InterfaceCheck = {
  id: 'error.details',
  run(context) {
    const errors = errorsOf(context);
    if (errors.length === 0) return skip(NONE);
    const bad = errors.find((e) =>
      e.error.details.some(
        (d) =>
          typeof d !== 'object' ||
          d === null ||
          typeof (d as { '@type'?: unknown })['@type'] !== 'string',
      ),
    );
    return bad === undefined
      ? pass(
          `${errors.reduce((n, e) => n + e.error.details.length, 0)} detail object(s), each with its @type`,
          errors[0]?.exchange,
        )
      : fail(`${bad.operation}: an error detail has no "@type"`, bad.exchange);
  },
};

const message: InterfaceCheck = {
  id: 'error.message',
  run(context) {
    const errors = errorsOf(context);
    if (errors.length === 0) return skip(NONE);
    const bad = errors.find((e) => e.error.message === undefined || e.error.message.trim() === '');
    return bad === undefined
      ? pass(`${errors.length} error(s), each with a message`, errors[0]?.exchange)
      : fail(`${bad.operation}: ${bad.error.code} has no message`, bad.exchange);
  },
};

/** The checks of this area. */
export const ERROR_CHECKS: readonly InterfaceCheck[] = [code, errorInfo, details, message];
