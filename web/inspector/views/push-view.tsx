/**
 * Push: create a config for a task — pointing at the inspector's own receiver (with a fresh
 * token it then checks) or at a URL given — list and delete a task's configs, and see each
 * delivery as it arrives, with its headers and whether its token matched.
 */

import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { TaskPushNotificationConfig } from '../../../src/inspector/inspector-api.js';
import type { ListTaskPushNotificationConfigsResponse } from '../../../src/index.js';
import { call, failureOf } from '../api.js';
import { showError, useStore } from '../store.js';
import { HeaderTable } from './header-table.js';
import { JsonTree } from './json-tree.js';

export function PushView(): JSX.Element {
  const connection = useStore((s) => s.connection);
  const deliveries = useStore((s) => s.deliveries);
  const pending = useStore((s) => s.pendingTaskId);
  const lastTask = useStore((s) => s.turns.at(-1)?.taskId);
  const [taskId, setTaskId] = useState(pending ?? lastTask ?? '');
  const [target, setTarget] = useState<'receiver' | 'url'>('receiver');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [configs, setConfigs] = useState<TaskPushNotificationConfig[] | null>(null);
  if (connection === null) return <p class="view empty">Connect to an agent first.</p>;

  const list = async (): Promise<void> => {
    try {
      const result = await call<ListTaskPushNotificationConfigsResponse>('push/list', {
        connectionId: connection.id,
        taskId,
      });
      setConfigs(result.configs ?? []);
    } catch (error) {
      showError('List push configs', failureOf(error));
    }
  };
  const create = async (): Promise<void> => {
    try {
      await call<TaskPushNotificationConfig>('push/create', {
        connectionId: connection.id,
        taskId,
        ...(target === 'url' ? { url } : {}),
        ...(token === '' ? {} : { token }),
      });
      await list();
    } catch (error) {
      showError('Create the push config', failureOf(error));
    }
  };
  const remove = async (id: string): Promise<void> => {
    try {
      await call('push/delete', { connectionId: connection.id, taskId, id });
      await list();
    } catch (error) {
      showError('Delete the push config', failureOf(error));
    }
  };

  return (
    <div class="view push-view">
      <form
        aria-label="Push config"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <label>
          Task id
          <input
            name="task"
            required
            value={taskId}
            onInput={(e) => setTaskId(e.currentTarget.value)}
          />
        </label>
        <fieldset>
          <legend>Deliver to</legend>
          <label class="inline">
            <input
              type="radio"
              name="target"
              checked={target === 'receiver'}
              onChange={() => setTarget('receiver')}
            />
            This inspector's receiver <code>{connection.receiverUrl}</code>
          </label>
          <label class="inline">
            <input
              type="radio"
              name="target"
              checked={target === 'url'}
              onChange={() => setTarget('url')}
            />
            Another URL
          </label>
          {target === 'url' && (
            <label>
              Webhook URL
              <input
                name="webhook"
                type="url"
                required
                value={url}
                onInput={(e) => setUrl(e.currentTarget.value)}
              />
            </label>
          )}
          <label>
            Token (empty: a fresh one)
            <input
              name="token"
              type="password"
              autoComplete="off"
              value={token}
              onInput={(e) => setToken(e.currentTarget.value)}
            />
          </label>
        </fieldset>
        <div class="row">
          <button type="submit" class="primary">
            Create config
          </button>
          <button type="button" onClick={() => void list()} disabled={taskId === ''}>
            List configs
          </button>
        </div>
      </form>
      {configs !== null && (
        <table class="configs">
          <thead>
            <tr>
              <th scope="col">Config</th>
              <th scope="col">URL</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {configs.map((config) => (
              <tr key={config.id} data-testid="push-config">
                <td>
                  <code>{config.id}</code>
                </td>
                <td>
                  <code>{config.url}</code>
                </td>
                <td>
                  <button type="button" onClick={() => void remove(config.id ?? '')}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
            {configs.length === 0 && (
              <tr>
                <td colSpan={3}>No configs for this task.</td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      <h3>Deliveries ({deliveries.length})</h3>
      {deliveries.length === 0 && <p class="muted">None yet. They appear here as they arrive.</p>}
      {[...deliveries].reverse().map((delivery) => (
        <details class="delivery" key={delivery.id} data-testid="delivery">
          <summary>
            #{delivery.id} {delivery.time.slice(11, 23)} {delivery.kind ?? 'invalid'}{' '}
            <code>{delivery.taskId?.slice(0, 8) ?? ''}</code>{' '}
            <span class={delivery.token === 'match' ? 'ok' : 'bad'} data-testid="delivery-token">
              token {delivery.token}
            </span>{' '}
            <span class="muted">answered {delivery.status}</span>
          </summary>
          {delivery.problems.length > 0 && (
            <ul class="problems">
              {delivery.problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          )}
          <HeaderTable headers={delivery.headers} label={`Headers of delivery ${delivery.id}`} />
          <JsonTree value={delivery.payload} label={`delivery ${delivery.id}`} />
        </details>
      ))}
    </div>
  );
}
