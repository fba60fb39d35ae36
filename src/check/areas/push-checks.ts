/**
 * Push notifications (spec 3.1.7-3.1.10, 4.3.3, 3.3.4), when the card declares them: config
 * create, get, list (with paging where the agent pages) and delete (idempotent) on a finished
 * task — with a webhook URL under `.invalid` (RFC 2606), which never resolves, so that nothing is
 * delivered anywhere — and a real delivery to the run's receiver, with the config's credentials.
 * Without the capability, every config operation must be refused.
 */

import type {
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '../../protocol/generated/types.js';
import { parseMessage } from '../../protocol/validation.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { CheckProtocolVersion } from '../check-types.js';
import type { ReceivedPush } from '../push-receiver.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId, userMessage, type InterfaceCheckContext } from '../check-context.js';
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
  type Unavailable,
  type Verdict,
} from '../verdict.js';
import { inlineExcerpt } from '../wire/wire-exchange.js';

const NOT_DECLARED = 'the card does not declare capabilities.pushNotifications';

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

/** A config the checks made on a finished task. */
interface MadeConfig {
  readonly taskId: string;
  readonly config: TaskPushNotificationConfig;
  readonly outcome: CallOutcome;
}

function configOf(outcome: CallOutcome): TaskPushNotificationConfig | undefined {
  return outcome.kind === 'result' ? (outcome.value as TaskPushNotificationConfig) : undefined;
}

const made = new WeakMap<
  InterfaceCheckContext['fixtures'],
  Promise<MadeConfig | Unavailable | CallOutcome>
>();

/** Creates a config on the finished task (once per interface and name). */
async function createConfig(
  context: InterfaceCheckContext,
  name: string,
): Promise<MadeConfig | Unavailable | CallOutcome> {
  const finished = await context.fixtures.finished();
  if (isUnavailable(finished)) return finished;
  const taskId = finished.task.id;
  const url = `https://push.invalid/tandem-check/${name}/${crypto.randomUUID()}`;
  const outcome = await context.probe.call('CreateTaskPushNotificationConfig', {
    taskId,
    url,
    token: `tandem-check-${crypto.randomUUID()}`,
  });
  const config = configOf(outcome);
  return config === undefined ? outcome : { taskId, config, outcome };
}

function firstConfig(
  context: InterfaceCheckContext,
): Promise<MadeConfig | Unavailable | CallOutcome> {
  let config = made.get(context.fixtures);
  if (config === undefined) {
    config = createConfig(context, 'first');
    made.set(context.fixtures, config);
  }
  return config;
}

function isMade(value: MadeConfig | Unavailable | CallOutcome): value is MadeConfig {
  return 'config' in value;
}

/** The verdict when the first config could not be made. */
function notMade(value: Unavailable | CallOutcome): Verdict {
  if (isUnavailable(value)) return skip(value.unavailable);
  return skip(`no config could be created (see push.create): the agent ${describeOutcome(value)}`);
}

const create: InterfaceCheck = {
  id: 'push.create',
  async run(context) {
    if (!context.view.pushNotifications) return skip(NOT_DECLARED);
    const config = await firstConfig(context);
    if (isUnavailable(config)) return skip(config.unavailable);
    if (!isMade(config))
      return fail(
        `CreateTaskPushNotificationConfig: the agent ${describeOutcome(config)}`,
        config.exchange,
      );
    const { config: created, outcome } = config;
    if (created.id === undefined || created.id === '')
      return fail('the created config has no id', outcome.exchange);
    if (created.taskId !== undefined && created.taskId !== '' && created.taskId !== config.taskId) {
      return fail(
        `the config was created for task ${created.taskId}, not ${config.taskId}`,
        outcome.exchange,
      );
    }
    return pass(`config ${created.id} of task ${config.taskId}`, outcome.exchange);
  },
};

const get: InterfaceCheck = {
  id: 'push.get',
  async run(context) {
    if (!context.view.pushNotifications) return skip(NOT_DECLARED);
    const config = await firstConfig(context);
    if (!isMade(config)) return notMade(config);
    const id = config.config.id ?? '';
    const outcome = await context.probe.call('GetTaskPushNotificationConfig', {
      taskId: config.taskId,
      id,
    });
    const got = configOf(outcome);
    if (got === undefined)
      return fail(
        `GetTaskPushNotificationConfig ${id}: the agent ${describeOutcome(outcome)}`,
        outcome.exchange,
      );
    if (got.id !== id || got.url !== config.config.url) {
      return fail(
        `the config read back is ${got.id ?? '(no id)'} at ${got.url}, not ${id} at ${config.config.url}`,
        outcome.exchange,
      );
    }
    return pass(`config ${id} reads back`, outcome.exchange);
  },
};

const getUnknown: InterfaceCheck = {
  id: 'push.get-unknown',
  async run(context) {
    if (!context.view.pushNotifications) return skip(NOT_DECLARED);
    const finished = await context.fixtures.finished();
    if (isUnavailable(finished)) return skip(finished.unavailable);
    const unknown = await context.probe.call('GetTaskPushNotificationConfig', {
      taskId: finished.task.id,
      id: `tandem-check-unknown-${crypto.randomUUID()}`,
    });
    return expectError(
      unknown,
      'TaskNotFoundError',
      context.probe.target.binding,
      `an unknown config of task ${finished.task.id}`,
    );
  },
};

const list: InterfaceCheck = {
  id: 'push.list',
  async run(context) {
    if (!context.view.pushNotifications) return skip(NOT_DECLARED);
    const config = await firstConfig(context);
    if (!isMade(config)) return notMade(config);
    const second = await createConfig(context, 'second');
    const outcome = await context.probe.call('ListTaskPushNotificationConfigs', {
      taskId: config.taskId,
    });
    if (outcome.kind !== 'result')
      return fail(
        `ListTaskPushNotificationConfigs: the agent ${describeOutcome(outcome)}`,
        outcome.exchange,
      );
    const page = outcome.value as ListTaskPushNotificationConfigsResponse;
    const ids = (page.configs ?? []).map((c) => c.id);
    if (!ids.includes(config.config.id))
      return fail(
        `the list (${ids.join(', ') || 'empty'}) lacks config ${config.config.id ?? ''}`,
        outcome.exchange,
      );
    if (!isMade(second) || context.probe.target.version === '0.3') {
      return pass(`the list holds config ${config.config.id ?? ''}`, outcome.exchange);
    }
    const first = await context.probe.call('ListTaskPushNotificationConfigs', {
      taskId: config.taskId,
      pageSize: 1,
    });
    if (first.kind !== 'result')
      return fail(
        `ListTaskPushNotificationConfigs with pageSize 1: the agent ${describeOutcome(first)}`,
        first.exchange,
      );
    const page1 = first.value as ListTaskPushNotificationConfigsResponse;
    const count = page1.configs?.length ?? 0;
    if (count > 1)
      return pass(
        `the list holds both configs (the agent does not page them, which §3.1.9 allows)`,
        first.exchange,
      );
    if (page1.nextPageToken === undefined || page1.nextPageToken === '') {
      return fail('pageSize 1 of two configs returned one and no nextPageToken', first.exchange);
    }
    const next = await context.probe.call('ListTaskPushNotificationConfigs', {
      taskId: config.taskId,
      pageSize: 1,
      pageToken: page1.nextPageToken,
    });
    if (next.kind !== 'result')
      return fail(`the second page: the agent ${describeOutcome(next)}`, next.exchange);
    const page2 = next.value as ListTaskPushNotificationConfigsResponse;
    const both = new Set([...(page1.configs ?? []), ...(page2.configs ?? [])].map((c) => c.id));
    return both.has(config.config.id) && both.has(second.config.id)
      ? pass('two pages of one config hold both configs', next.exchange)
      : fail(`the two pages hold ${[...both].join(', ')}, not both configs`, next.exchange);
  },
};

const remove: InterfaceCheck = {
  id: 'push.delete',
  async run(context) {
    if (!context.view.pushNotifications) return skip(NOT_DECLARED);
    const config = await firstConfig(context);
    if (!isMade(config)) return notMade(config);
    const request = { taskId: config.taskId, id: config.config.id ?? '' };
    const deleted = await context.probe.call('DeleteTaskPushNotificationConfig', request);
    if (deleted.kind !== 'result')
      return fail(
        `DeleteTaskPushNotificationConfig: the agent ${describeOutcome(deleted)}`,
        deleted.exchange,
      );
    // Whether the error for the deleted config is the right one is push.get-unknown's question.
    const gone = await context.probe.call('GetTaskPushNotificationConfig', request);
    if (gone.kind !== 'error' || gone.error.refusal !== undefined) {
      return fail(
        `after the delete, GetTaskPushNotificationConfig ${describeOutcome(gone)}`,
        gone.exchange,
      );
    }
    const again = await context.probe.call('DeleteTaskPushNotificationConfig', request);
    if (again.kind === 'result') {
      return pass('deleted, unreadable afterwards; deleting it again succeeds', again.exchange);
    }
    const sameEffect =
      again.kind === 'error' &&
      again.error.refusal === undefined &&
      (context.probe.target.version === '0.3' || isErrorOfType(again.error, 'TaskNotFoundError'));
    return sameEffect
      ? pass(
          `deleted, unreadable afterwards; deleting it again answers ${describeError(again.error)}, with the same effect`,
          again.exchange,
        )
      : fail(
          `deleting the config a second time: the agent ${describeOutcome(again)}`,
          again.exchange,
        );
  },
};

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

/** The checks of this area. */
export const PUSH_CHECKS: readonly InterfaceCheck[] = [
  create,
  get,
  getUnknown,
  list,
  remove,
  delivery,
  unsupported,
];
