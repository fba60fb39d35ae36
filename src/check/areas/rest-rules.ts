/**
 * The HTTP+JSON binding's own rules (spec 11.1, 11.3, 11.6; 0.3 section 3.2.3): every operation
 * answers at its route (an unknown task's 404 with a `google.rpc.Status` body is a route; a
 * framework's "Cannot GET" page is not), errors are JSON `google.rpc.Status` bodies and never
 * HTML, and answers carry the binding's media type.
 */

import type { OperationName } from '../../protocol/operations.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId, type InterfaceCheckContext } from '../check-context.js';
import type { CallOutcome, StreamOutcome } from '../probe/probe.js';
import { RestProbe } from '../probe/rest-probe.js';
import { closeStream, exchangeOf, fail, pass, skip } from '../verdict.js';

function rest(context: InterfaceCheckContext): RestProbe | undefined {
  return context.probe instanceof RestProbe ? context.probe : undefined;
}

/** Whether an answer comes from the operation's route rather than from no route at all. */
function routed(outcome: CallOutcome | StreamOutcome): boolean {
  switch (outcome.kind) {
    case 'result':
    case 'stream':
      return true;
    case 'error': {
      const error = outcome.error;
      if (error.type !== undefined || error.reason !== undefined || error.refusal !== undefined)
        return true;
      // A JSON google.rpc.Status is the binding's answer; a 404 or 405 in another form is no route.
      return (
        error.formProblems.length === 0 || (error.httpStatus !== 404 && error.httpStatus !== 405)
      );
    }
    default:
      return false;
  }
}

const routes: InterfaceCheck = {
  id: 'rest.routes',
  async run(context) {
    const probe = rest(context);
    if (probe === undefined) return skip('not an HTTP+JSON interface');
    const id = unknownTaskId();
    const tries: [OperationName, () => Promise<CallOutcome | StreamOutcome>][] = [
      ['GetTask', () => probe.call('GetTask', { id })],
      ['CancelTask', () => probe.call('CancelTask', { id })],
      ['SubscribeToTask', () => probe.stream('SubscribeToTask', { id })],
      [
        'CreateTaskPushNotificationConfig',
        () =>
          probe.call('CreateTaskPushNotificationConfig', {
            taskId: id,
            url: 'https://push.invalid/tandem-check',
          }),
      ],
      [
        'GetTaskPushNotificationConfig',
        () => probe.call('GetTaskPushNotificationConfig', { taskId: id, id: 'tandem-check' }),
      ],
      [
        'ListTaskPushNotificationConfigs',
        () => probe.call('ListTaskPushNotificationConfigs', { taskId: id }),
      ],
      [
        'DeleteTaskPushNotificationConfig',
        () => probe.call('DeleteTaskPushNotificationConfig', { taskId: id, id: 'tandem-check' }),
      ],
      ['GetExtendedAgentCard', () => probe.call('GetExtendedAgentCard', {})],
    ];
    if (probe.target.version === '1.0')
      tries.push(['ListTasks', () => probe.call('ListTasks', { pageSize: 1 })]);
    const missing: { operation: string; outcome: CallOutcome | StreamOutcome }[] = [];
    for (const [operation, attempt] of tries) {
      const outcome = await attempt();
      closeStream(outcome);
      if (!routed(outcome)) missing.push({ operation, outcome });
    }
    for (const operation of ['SendMessage', 'SendStreamingMessage']) {
      const seen = context.observations.find((o) => o.operation === operation);
      if (seen !== undefined && !routed(seen.outcome))
        missing.push({ operation, outcome: seen.outcome });
    }
    const first = missing[0];
    if (first === undefined)
      return pass(`every operation answers at its route (${tries.length} probed)`);
    const route = exchangeOf(first.outcome).request;
    return fail(
      `${missing.map((m) => m.operation).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no route: ${route.method} ${route.url} answered ${exchangeOf(first.outcome).response?.status ?? 'nothing'}`,
      exchangeOf(first.outcome),
    );
  },
};

const errorBody: InterfaceCheck = {
  id: 'rest.error-body',
  async run(context) {
    const probe = rest(context);
    if (probe === undefined) return skip('not an HTTP+JSON interface');
    // A body that is not JSON is where web frameworks answer with their own HTML error page.
    const path = probe.target.version === '1.0' ? '/message:send' : '/v1/message:send';
    const malformed = await probe.sendRaw('POST', path, '{"message": ');
    if (malformed.answer !== undefined) {
      const read = probe.readUnary('SendMessage', malformed.answer, malformed.exchange);
      if (read.kind !== 'error') {
        return fail(
          `a body that is not JSON was answered HTTP ${malformed.answer.status}, not with an error`,
          malformed.exchange,
        );
      }
      if (read.error.formProblems.length > 0) {
        return fail(
          `a body that is not JSON: ${read.error.code}, ${read.error.formProblems.join('; ')}`,
          malformed.exchange,
        );
      }
    }
    const errors = context.observations.flatMap((o) =>
      o.outcome.kind === 'error' ? [o.outcome] : [],
    );
    if (errors.length === 0) return skip('the run elicited no error');
    const bad = errors.find((e) => e.error.formProblems.length > 0);
    return bad === undefined
      ? pass(`${errors.length} error answer(s), each a JSON google.rpc.Status`, errors[0]?.exchange)
      : fail(`${bad.error.code}: ${bad.error.formProblems.join('; ')}`, bad.exchange);
  },
};

const unknownRoute: InterfaceCheck = {
  id: 'rest.unknown-route',
  async run(context) {
    const probe = rest(context);
    if (probe === undefined) return skip('not an HTTP+JSON interface');
    const path = `${probe.target.version === '1.0' ? '' : '/v1'}/tandem-check/no-such-route`;
    const sent = await probe.sendRaw('GET', path);
    if (sent.answer === undefined) return fail(`no answer: ${sent.failure ?? ''}`, sent.exchange);
    const read = probe.readUnary('GetTask', sent.answer, sent.exchange);
    if (read.kind !== 'error') {
      return fail(
        `GET ${path} was answered HTTP ${sent.answer.status}, not with an error`,
        sent.exchange,
      );
    }
    if (read.error.formProblems.length > 0) {
      return fail(
        `GET ${path}: ${read.error.code}, ${read.error.formProblems.join('; ')}`,
        sent.exchange,
      );
    }
    return pass(`GET ${path}: ${read.error.code} with a JSON error body`, sent.exchange);
  },
};

const contentType: InterfaceCheck = {
  id: 'rest.content-type',
  run(context) {
    const probe = rest(context);
    if (probe === undefined) return skip('not an HTTP+JSON interface');
    if (probe.mediaTypes.length === 0) return skip('no JSON answer was seen');
    const wanted = probe.target.version === '1.0' ? 'application/a2a+json' : 'application/json';
    const other = probe.mediaTypes.filter((m) => m.mediaType !== wanted);
    const first = other[0];
    return first === undefined
      ? pass(
          `every answer (${probe.mediaTypes.length}) is ${wanted}`,
          probe.mediaTypes[0]?.exchange,
        )
      : fail(
          `${other.length} of ${probe.mediaTypes.length} answers are ${[...new Set(other.map((m) => m.mediaType))].join(', ')}, not ${wanted}`,
          first.exchange,
        );
  },
};

/** The checks of this binding. */
export const REST_RULES: readonly InterfaceCheck[] = [routes, errorBody, unknownRoute, contentType];
