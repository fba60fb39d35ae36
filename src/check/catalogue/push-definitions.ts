/**
 * Push notifications (spec 3.1.7-3.1.10, 4.3.3, 3.3.4; 0.3 sections 7.5-7.8, 9.5): config
 * operations, a real delivery, and the refusals without the capability.
 */

import type { CheckDefinition } from '../check-types.js';

/** The checks of this area, in the order of the report. */
export const PUSH_DEFINITIONS: readonly CheckDefinition[] = [
  {
    id: 'push.create',
    title: 'CreateTaskPushNotificationConfig returns the config with an id',
    area: 'push',
    level: 'must',
    section: '3.1.7',
    scope: 'interface',
    v03: { section: '7.5' },
  },
  {
    id: 'push.get',
    title: 'GetTaskPushNotificationConfig returns the config',
    area: 'push',
    level: 'must',
    section: '3.1.8',
    scope: 'interface',
    v03: { section: '7.6' },
  },
  {
    id: 'push.get-unknown',
    title: 'GetTaskPushNotificationConfig of an unknown config gets TaskNotFoundError',
    area: 'push',
    level: 'must',
    section: '3.1.8',
    scope: 'interface',
    v03: { section: '8.2', level: 'should' },
  },
  {
    id: 'push.list',
    title: 'ListTaskPushNotificationConfigs lists the configs, page by page',
    area: 'push',
    level: 'must',
    section: '3.1.9',
    scope: 'interface',
    v03: { section: '7.7' },
  },
  {
    id: 'push.delete',
    title: 'DeleteTaskPushNotificationConfig removes the config, idempotently',
    area: 'push',
    level: 'must',
    section: '3.1.10',
    scope: 'interface',
    v03: { section: '7.8' },
  },
  {
    id: 'push.delivery',
    title:
      "A notification reaches the webhook, a StreamResponse with the config's credentials (0.3: the Task)",
    area: 'push',
    level: 'must',
    section: '4.3.3',
    scope: 'interface',
    v03: { section: '9.5' },
  },
  {
    id: 'push.unsupported',
    title: 'Push config operations get PushNotificationNotSupportedError when push is not declared',
    area: 'push',
    level: 'must',
    section: '3.3.4',
    scope: 'interface',
    v03: { section: '8.2', level: 'should' },
  },
];
