/**
 * Version negotiation end to end (spec 3.6): the `A2A-Version` service parameter of each call
 * decides whether the server serves it. 1.0, with or without a patch part, is served; a missing
 * or empty version means 0.3, which this server does not serve; any other version is refused
 * with VersionNotSupported naming the supported versions and the requested one — before anything
 * runs or is stored. Over every binding, against every store.
 */

import { expect, it } from 'vitest';
import { VersionNotSupportedError } from '../../src/index.js';
import { defineAgent } from '../../src/server.js';
import { rejection } from '../support/a2a-errors.js';
import { testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import { send } from '../support/messages.js';

describeBehaviour('Version negotiation', (env) => {
  function asker() {
    const runs: string[] = [];
    const agent = defineAgent({
      card: testCard('Asker'),
      execute: (ctx) => {
        runs.push(ctx.text);
        return ctx.inputRequired('And then?');
      },
    });
    return { agent, runs };
  }

  it('serves 1.0, also with a patch part or surrounding spaces', async () => {
    const { agent: definition, runs } = asker();
    const { agent } = await env.serve(definition);
    for (const version of ['1.0', '1.0.3', ' 1.0 ']) {
      const task = await agent.sendTask(send(version), { version });
      expect(task.status.state, version).toBe('TASK_STATE_INPUT_REQUIRED');
      expect((await agent.getTask({ id: task.id }, { version })).id).toBe(task.id);
      const stream = await agent.subscribeToTask({ id: task.id }, { version });
      expect((await stream.next())?.response.task?.id).toBe(task.id);
      stream.close();
    }
    expect(runs).toEqual(['1.0', '1.0.3', ' 1.0 ']);
  });

  it.each([
    ['no A2A-Version', null, '0.3'],
    ['an empty A2A-Version', '', '0.3'],
    ['0.3', '0.3', '0.3'],
    ['2.0', '2.0', '2.0'],
    ['garbage', 'latest', 'latest'],
  ])(
    'refuses %s with VersionNotSupported naming the versions, running nothing',
    async (_case, version, requested) => {
      const { agent: definition, runs } = asker();
      const { agent } = await env.serve(definition);
      const task = await agent.sendTask(send('first'));
      const refusals = [
        () => agent.sendMessage(send('go'), { version }),
        () => agent.sendMessage(send('resume', { taskId: task.id }), { version }),
        () => agent.sendStreamingMessage(send('go'), { version }),
        () => agent.getTask({ id: task.id }, { version }),
        () => agent.listTasks({}, { version }),
        () => agent.cancelTask({ id: task.id }, { version }),
        () => agent.subscribeToTask({ id: task.id }, { version }),
      ];
      for (const refused of refusals) {
        const error = await rejection(refused(), VersionNotSupportedError);
        expect(error.metadata).toEqual({ supportedVersions: '1.0', requestedVersion: requested });
      }
      expect(runs).toEqual(['first']);
      const listed = await agent.listTasks();
      expect(listed.tasks.map((t) => [t.id, t.status.state])).toEqual([
        [task.id, 'TASK_STATE_INPUT_REQUIRED'],
      ]);
    },
  );
});
