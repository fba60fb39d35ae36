/**
 * Push notification configs (spec 3.1.7-3.1.10), when the card declares push: create, get (and
 * an unknown config), list (with paging where the agent pages) and delete (idempotent), on a
 * finished task and with a webhook URL under `.invalid` (RFC 2606), which never resolves, so that
 * nothing is delivered anywhere.
 */

import type {
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '../../protocol/generated/types.js';

import type { InterfaceCheck } from '../check-implementation.js';
import { type InterfaceCheckContext } from '../check-context.js';
import type { CallOutcome } from '../probe/probe.js';

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

export const NOT_DECLARED = 'the card does not declare capabilities.pushNotifications';

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

/** The checks of push configs. */
export const PUSH_CONFIG_CHECKS: readonly InterfaceCheck[] = [
  create,
  get,
  getUnknown,
  list,
  remove,
];
