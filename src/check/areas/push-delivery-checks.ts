/**
 * Push delivery (spec 4.3.3, 3.3.4): a notification reaches the run's receiver, registered inline
 * in a message, as a StreamResponse about the task with the config's credentials (0.3: the Task
 * object); without the capability, every config operation is refused.
 */

import { parseMessage } from '../../protocol/validation.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { CheckProtocolVersion } from '../check-types.js';
import type { ReceivedPush } from '../push-receiver.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId, userMessage } from '../check-context.js';
import type { CallOutcome } from '../probe/probe.js';
import { readEvent } from '../probe/result-reading.js';
import { describeError, isErrorOfType } from '../probe/wire-error.js';
import {
  describeOutcome,
  expectError,
  fail,
  isUnavailable,
  pass,
  skip,
  type Verdict,
} from '../verdict.js';
import { inlineExcerpt } from '../wire/wire-exchange.js';
import { NOT_DECLARED } from './push-config-checks.js';

/** Whether a notification tells of the task's terminal state. */
function isFinal(version: CheckProtocolVersion, received: ReceivedPush): boolean {
  let body: unknown;
  try {
    body = JSON.parse(received.body) as unknown;
  } catch {
    return false;
  }
  const read = readEvent(version, 'json', body, 'the webhook');
  if (!read.ok) return false;
  const payload = read.value.payload;
  const state = payload.task?.status.state ?? payload.statusUpdate?.status.state;
  return state !== undefined && isTerminalState(state);
}

const delivery: InterfaceCheck = {
  id: 'push.delivery',
  async run(context) {
    if (!context.view.pushNotifications) return skip(NOT_DECLARED);
    if (context.fixtures.safe) return skip('--safe: the checker sends no message');
    const receiver = await context.receiver();
    if (isUnavailable(receiver)) return skip(receiver.unavailable);
    const path = `/tandem-check/${crypto.randomUUID()}`;
    const credentials = `tandem-check-${crypto.randomUUID()}`;
    context.environment.secrets.addValue(credentials);
    const outcome = await context.probe.call('SendMessage', {
      message: userMessage(context),
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: {
          url: receiver.urlOf(path),
          token: `tandem-check-token-${crypto.randomUUID()}`,
          authentication: { scheme: 'Bearer', credentials },
        },
      },
    });
    if (outcome.kind === 'error' && isErrorOfType(outcome.error, 'InvalidParamsError')) {
      return skip(
        `the agent refuses the webhook ${receiver.urlOf(path)} (${describeError(outcome.error)}); an SSRF guard refuses private addresses (§13.2): give --receiver an address it accepts`,
      );
    }
    if (outcome.kind !== 'result')
      return fail(
        `SendMessage with a push config: the agent ${describeOutcome(outcome)}`,
        outcome.exchange,
      );
    const task = (outcome.value as { task?: { id: string } }).task;
    if (task === undefined)
      return skip('the agent answered with a Message and created no task to notify about');
    const waitMs = Math.max(context.options.timeoutMs ?? 10_000, 5_000);
    const push = await receiver.waitFor(path, waitMs);
    if (push === undefined)
      return fail(
        `no notification about task ${task.id} reached ${receiver.urlOf(path)} within ${waitMs} ms`,
        outcome.exchange,
      );
    const exchange = {
      request: outcome.exchange.request,
      response: {
        status: 'webhook POST received',
        headers: Object.fromEntries(
          Object.entries(push.headers).map(([k, v]) => [
            k,
            context.environment.secrets.maskHeader(k, String(v)),
          ]),
        ),
        body: push.body.slice(0, 600),
      },
    };
    // 0.3 describes how the server may authenticate to the webhook; 1.0 says it sends them.
    const authorization = push.headers.authorization;
    if (context.probe.target.version === '1.0' && authorization !== `Bearer ${credentials}`) {
      return fail(
        `the notification carries ${authorization === undefined ? 'no Authorization header' : 'another Authorization'}, not the config's Bearer credentials (§4.3.3)`,
        exchange,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(push.body) as unknown;
    } catch {
      return fail(`the notification body is not JSON: ${inlineExcerpt(push.body)}`, exchange);
    }
    const version = context.probe.target.version;
    const read = readEvent(version, 'json', body, receiver.urlOf(path));
    if (!read.ok) {
      const v10 = version === '0.3' && readEvent('1.0', 'json', body, receiver.urlOf(path)).ok;
      return fail(
        v10
          ? 'the notification to a webhook set up over A2A 0.3 is a 1.0 StreamResponse, not the 0.3 Task object (kind "task") that 0.3 clients read (0.3 §9.5)'
          : `the notification is not ${version === '0.3' ? 'a 0.3 Task' : 'a StreamResponse'}: ${read.problem}`,
        exchange,
      );
    }
    const payload = read.value.payload;
    const about =
      payload.task?.id ??
      payload.statusUpdate?.taskId ??
      payload.artifactUpdate?.taskId ??
      payload.message?.taskId;
    if (about !== task.id)
      return fail(`the notification is about task ${about ?? '(none)'}, not ${task.id}`, exchange);
    const parsed = parseMessage('StreamResponse', payload);
    if (!parsed.success) return fail('the notification is not a StreamResponse', exchange);
    // The task goes on notifying; waiting for its end (briefly) keeps the webhook up for it.
    await receiver.waitFor(path, Math.min(waitMs, 3_000), (received) => isFinal(version, received));
    return pass(
      `a notification about task ${task.id} arrived${context.probe.target.version === '1.0' ? ' with the Bearer credentials' : ''}`,
      exchange,
    );
  },
};

const unsupported: InterfaceCheck = {
  id: 'push.unsupported',
  async run(context) {
    if (context.view.pushNotifications) return skip('the card declares push notifications');
    const { probe } = context;
    const readable = context.fixtures.safe ? undefined : await context.fixtures.finished();
    const taskId =
      readable === undefined || isUnavailable(readable) ? unknownTaskId() : readable.task.id;
    const calls: [string, () => Promise<CallOutcome>][] = [
      [
        'CreateTaskPushNotificationConfig',
        () =>
          probe.call('CreateTaskPushNotificationConfig', {
            taskId,
            url: 'https://push.invalid/tandem-check',
          }),
      ],
      [
        'GetTaskPushNotificationConfig',
        () => probe.call('GetTaskPushNotificationConfig', { taskId, id: 'tandem-check' }),
      ],
      [
        'ListTaskPushNotificationConfigs',
        () => probe.call('ListTaskPushNotificationConfigs', { taskId }),
      ],
      [
        'DeleteTaskPushNotificationConfig',
        () => probe.call('DeleteTaskPushNotificationConfig', { taskId, id: 'tandem-check' }),
      ],
    ];
    let last: Verdict | undefined;
    for (const [name, call] of calls) {
      if (context.fixtures.safe && name === 'CreateTaskPushNotificationConfig') continue;
      last = expectError(
        await call(),
        'PushNotificationNotSupportedError',
        probe.target.binding,
        name,
      );
      if (last.status !== 'pass') return last;
    }
    return pass(
      'every push config operation is refused with PushNotificationNotSupportedError',
      last?.exchange,
    );
  },
};

/** The checks of delivery and of the capability. */
export const PUSH_DELIVERY_CHECKS: readonly InterfaceCheck[] = [delivery, unsupported];
