/**
 * The JSON-RPC binding's own rules (spec 9.1, 9.3, 9.5; JSON-RPC 2.0 sections 4-5): every answer
 * is a response object that echoes its request's id (judged over every answer of the run, and
 * with a numeric id), the standard errors for malformed JSON, a body that is no request and an
 * unknown method, no answer to a notification, `application/json` whatever the request's media
 * type, and A2A errors that name their reason in an `ErrorInfo`.
 */

import { errorReasonOf } from '../../protocol/error-codes.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId, type InterfaceCheckContext } from '../check-context.js';
import { JsonRpcProbe } from '../probe/jsonrpc-probe.js';
import { jsonRpcError } from '../probe/wire-error.js';
import { fail, pass, skip, type Verdict } from '../verdict.js';
import { inlineExcerpt } from '../wire/wire-exchange.js';

function jsonRpc(context: InterfaceCheckContext): JsonRpcProbe | undefined {
  return context.probe instanceof JsonRpcProbe ? context.probe : undefined;
}

function getTaskMethod(probe: JsonRpcProbe): string {
  return probe.target.version === '1.0' ? 'GetTask' : 'tasks/get';
}

/** Sends a raw body and expects the JSON-RPC error `code` (with `id`, when given). */
async function expectCode(
  probe: JsonRpcProbe,
  body: string,
  code: number,
  name: string,
  id: unknown,
): Promise<Verdict> {
  const sent = await probe.postRaw(body);
  if (sent.answer === undefined) return fail(`no answer: ${sent.failure ?? ''}`, sent.exchange);
  const read = probe.readAnswer(id, sent.answer, sent.exchange);
  if (read.envelope === undefined)
    return fail(read.problem ?? 'no JSON-RPC response', sent.exchange);
  const error = read.envelope.error;
  const got = jsonRpcError(probe.target.version, error, sent.answer.status);
  if (typeof error !== 'object' || error === null) {
    return fail(
      `expected error ${code} ${name}, the agent answered ${inlineExcerpt(sent.answer.text)}`,
      sent.exchange,
    );
  }
  if (got.jsonRpcCode !== code) {
    return fail(
      `expected error ${code} ${name}, the agent answered ${got.code}${got.message === undefined ? '' : ` "${got.message.slice(0, 80)}"`}`,
      sent.exchange,
    );
  }
  if (read.envelope.id !== id) {
    return fail(
      `error ${code}, but its id is ${JSON.stringify(read.envelope.id)}, not ${JSON.stringify(id)}`,
      sent.exchange,
    );
  }
  return pass(`error ${code}: ${got.message ?? ''}`, sent.exchange);
}

const envelope: InterfaceCheck = {
  id: 'jsonrpc.envelope',
  async run(context) {
    const probe = jsonRpc(context);
    if (probe === undefined) return skip('not a JSON-RPC interface');
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: getTaskMethod(probe),
      params: { id: unknownTaskId() },
    });
    const sent = await probe.postRaw(body);
    if (sent.answer !== undefined) probe.readAnswer(7, sent.answer, sent.exchange);
    const note = probe.envelopeNotes[0];
    if (note !== undefined) {
      return fail(
        `${probe.envelopeNotes.length} answer(s) break the envelope; first: ${note.problem}`,
        note.exchange,
      );
    }
    return pass(
      `every answer (${probe.mediaTypes.length}) is a JSON-RPC 2.0 response that echoes its id, numeric ids too`,
      sent.exchange,
    );
  },
};

const parseError: InterfaceCheck = {
  id: 'jsonrpc.parse-error',
  async run(context) {
    const probe = jsonRpc(context);
    if (probe === undefined) return skip('not a JSON-RPC interface');
    return expectCode(probe, '{"jsonrpc": "2.0", "id": 1, "method": ', -32700, 'Parse error', null);
  },
};

const invalidRequest: InterfaceCheck = {
  id: 'jsonrpc.invalid-request',
  async run(context) {
    const probe = jsonRpc(context);
    if (probe === undefined) return skip('not a JSON-RPC interface');
    return expectCode(
      probe,
      '{"jsonrpc": "2.0", "id": 2, "method": 42}',
      -32600,
      'Invalid Request',
      2,
    );
  },
};

const methodNotFound: InterfaceCheck = {
  id: 'jsonrpc.method-not-found',
  async run(context) {
    const probe = jsonRpc(context);
    if (probe === undefined) return skip('not a JSON-RPC interface');
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tandem.check/no-such-method',
      params: {},
    });
    return expectCode(probe, body, -32601, 'Method not found', 3);
  },
};

const notification: InterfaceCheck = {
  id: 'jsonrpc.notification',
  async run(context) {
    const probe = jsonRpc(context);
    if (probe === undefined) return skip('not a JSON-RPC interface');
    const body = JSON.stringify({
      jsonrpc: '2.0',
      method: getTaskMethod(probe),
      params: { id: unknownTaskId() },
    });
    const sent = await probe.postRaw(body);
    if (sent.answer === undefined) return fail(`no answer: ${sent.failure ?? ''}`, sent.exchange);
    const text = sent.answer.text.trim();
    if (text === '') return pass(`HTTP ${sent.answer.status} without a body`, sent.exchange);
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      return pass(`HTTP ${sent.answer.status}, no JSON-RPC response`, sent.exchange);
    }
    return typeof value === 'object' && value !== null && ('result' in value || 'error' in value)
      ? fail(
          `the notification was answered with a JSON-RPC response: ${inlineExcerpt(text)}`,
          sent.exchange,
        )
      : pass(`HTTP ${sent.answer.status}, no JSON-RPC response`, sent.exchange);
  },
};

const contentType: InterfaceCheck = {
  id: 'jsonrpc.content-type',
  async run(context) {
    const probe = jsonRpc(context);
    if (probe === undefined) return skip('not a JSON-RPC interface');
    const wrong = probe.mediaTypes.find((m) => m.mediaType !== 'application/json');
    if (wrong !== undefined)
      return fail(
        `an answer is ${wrong.mediaType || 'without content type'}, not application/json`,
        wrong.exchange,
      );
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 4,
      method: getTaskMethod(probe),
      params: { id: unknownTaskId() },
    });
    const sent = await probe.postRaw(body, { contentType: 'text/plain' });
    if (sent.answer === undefined) return fail(`no answer: ${sent.failure ?? ''}`, sent.exchange);
    const read = probe.readAnswer(4, sent.answer, sent.exchange);
    if (read.envelope === undefined) {
      return fail(
        `a request sent as text/plain was answered with no JSON-RPC response: ${read.problem ?? ''}`,
        sent.exchange,
      );
    }
    if (sent.answer.mediaType !== 'application/json') {
      return fail(
        `a request sent as text/plain was answered as ${sent.answer.mediaType || 'no content type'}`,
        sent.exchange,
      );
    }
    return pass(
      `every answer is application/json; a text/plain request gets HTTP ${sent.answer.status} with a JSON-RPC response`,
      sent.exchange,
    );
  },
};

const errorInfo: InterfaceCheck = {
  id: 'jsonrpc.error-info',
  run(context) {
    const errors = context.observations.flatMap((o) =>
      o.outcome.kind === 'error' && o.outcome.error.refusal === undefined
        ? [{ error: o.outcome.error, exchange: o.outcome.exchange }]
        : [],
    );
    const specific = errors.filter(
      ({ error }) => error.type !== undefined && errorReasonOf(error.type) !== undefined,
    );
    if (specific.length === 0) return skip('the run elicited no A2A-specific error');
    const bare = specific.find(
      ({ error }) => error.reason !== errorReasonOf(error.type ?? 'InternalError'),
    );
    return bare === undefined
      ? pass(
          `${specific.length} A2A error(s), each with its ErrorInfo reason`,
          specific[0]?.exchange,
        )
      : fail(
          `${bare.error.type ?? ''} (${bare.error.code}) has ${bare.error.reason === undefined ? 'no ErrorInfo in error.data' : `the ErrorInfo reason ${bare.error.reason}`}`,
          bare.exchange,
        );
  },
};

/** The checks of this binding. */
export const JSONRPC_RULES: readonly InterfaceCheck[] = [
  envelope,
  parseError,
  invalidRequest,
  methodNotFound,
  notification,
  contentType,
  errorInfo,
];
