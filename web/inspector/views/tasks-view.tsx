/**
 * Tasks: ListTasks with its filters (context, state) and pagination, a task's detail (status
 * message, history, artifacts) on selection, and cancel and subscribe on it.
 */

import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { ListTasksResponse, Task } from '../../../src/index.js';
import { call, failureOf } from '../api.js';
import { showError, useStore } from '../store.js';
import { subscribeTask } from '../task-actions.js';
import { isTerminal, stateLabel } from '../turns.js';
import { JsonTree } from './json-tree.js';
import { PartView } from './part-view.js';

const STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
];

function TaskDetail(props: { task: Task; onChange: (task: Task) => void }): JSX.Element {
  const { task } = props;
  const connection = useStore((s) => s.connection);
  const cancel = async (): Promise<void> => {
    try {
      props.onChange(
        await call<Task>('tasks/cancel', { connectionId: connection?.id, id: task.id }),
      );
    } catch (error) {
      showError('Cancel', failureOf(error));
    }
  };
  return (
    <section class="task-detail" aria-label="Task detail" data-testid="task-detail">
      <h3>
        Task <code>{task.id}</code>
      </h3>
      <p>
        <span
          class={`state state-${task.status.state.replace(/^TASK_STATE_/, '').toLowerCase()}`}
          data-testid="detail-state"
        >
          {stateLabel(task.status.state)}
        </span>{' '}
        <span class="muted">
          context <code>{task.contextId}</code> · {task.status.timestamp ?? ''}
        </span>
      </p>
      {task.status.message !== undefined && (
        <div class="reply">
          {task.status.message.parts.map((part, index) => (
            <PartView part={part} key={index} />
          ))}
        </div>
      )}
      <div class="row">
        {!isTerminal(task.status.state) && (
          <button type="button" onClick={() => void cancel()}>
            Cancel
          </button>
        )}
        <button type="button" onClick={() => void subscribeTask(task.id)}>
          Subscribe
        </button>
      </div>
      <h4>History ({task.history?.length ?? 0})</h4>
      <ol class="history">
        {(task.history ?? []).map((message) => (
          <li key={message.messageId} class={message.role === 'ROLE_USER' ? 'user' : 'agent'}>
            <span class="muted">{message.role === 'ROLE_USER' ? 'user' : 'agent'}</span>
            {message.parts.map((part, index) => (
              <PartView part={part} key={index} />
            ))}
          </li>
        ))}
      </ol>
      <h4>Artifacts ({task.artifacts?.length ?? 0})</h4>
      {(task.artifacts ?? []).map((artifact) => (
        <section class="artifact" key={artifact.artifactId}>
          {artifact.name !== undefined && <h5>{artifact.name}</h5>}
          {artifact.parts.map((part, index) => (
            <PartView part={part} key={index} />
          ))}
        </section>
      ))}
      <details>
        <summary>Raw JSON</summary>
        <JsonTree value={task} label="task" />
      </details>
    </section>
  );
}

export function TasksView(): JSX.Element {
  const connection = useStore((s) => s.connection);
  const [contextId, setContextId] = useState('');
  const [status, setStatus] = useState('');
  const [pageSize, setPageSize] = useState(10);
  const [page, setPage] = useState<ListTasksResponse | null>(null);
  const [tokens, setTokens] = useState<string[]>([]);
  const [selected, setSelected] = useState<Task | null>(null);
  if (connection === null) return <p class="view empty">Connect to an agent first.</p>;

  const load = async (pageToken: string | undefined, history: string[]): Promise<void> => {
    try {
      const result = await call<ListTasksResponse>('tasks/list', {
        connectionId: connection.id,
        ...(contextId === '' ? {} : { contextId }),
        ...(status === '' ? {} : { status }),
        ...(pageToken === undefined ? {} : { pageToken }),
        pageSize,
      });
      setPage(result);
      setTokens(history);
    } catch (error) {
      showError('List tasks', failureOf(error));
    }
  };
  const open = async (id: string): Promise<void> => {
    try {
      setSelected(await call<Task>('tasks/get', { connectionId: connection.id, id }));
    } catch (error) {
      showError('Get the task', failureOf(error));
    }
  };

  return (
    <div class="view tasks-view">
      <form
        class="row filters"
        aria-label="Task filters"
        onSubmit={(e) => {
          e.preventDefault();
          void load(undefined, []);
        }}
      >
        <label>
          Context
          <input
            name="context"
            value={contextId}
            onInput={(e) => setContextId(e.currentTarget.value)}
          />
        </label>
        <label>
          State
          <select name="state" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">any</option>
            {STATES.map((state) => (
              <option value={state} key={state}>
                {stateLabel(state)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Page size
          <input
            name="page-size"
            type="number"
            min={1}
            max={100}
            value={pageSize}
            onInput={(e) => setPageSize(Number(e.currentTarget.value) || 10)}
          />
        </label>
        <button type="submit" class="primary">
          List tasks
        </button>
      </form>
      {page !== null && (
        <>
          <p class="muted" data-testid="tasks-total">
            {page.tasks.length} shown{page.totalSize === undefined ? '' : ` of ${page.totalSize}`}
          </p>
          <table class="tasks">
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">State</th>
                <th scope="col">Context</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {page.tasks.map((task) => (
                <tr
                  key={task.id}
                  data-testid="task-row"
                  class={selected?.id === task.id ? 'selected' : ''}
                >
                  <td>
                    <button type="button" class="link" onClick={() => void open(task.id)}>
                      {task.id}
                    </button>
                  </td>
                  <td>{stateLabel(task.status.state)}</td>
                  <td>
                    <code>{task.contextId?.slice(0, 8)}</code>
                  </td>
                  <td>{task.status.timestamp ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="row">
            <button
              type="button"
              disabled={tokens.length === 0}
              onClick={() => void load(tokens.at(-2), tokens.slice(0, -1))}
            >
              Previous page
            </button>
            <button
              type="button"
              disabled={page.nextPageToken === ''}
              onClick={() => void load(page.nextPageToken, [...tokens, page.nextPageToken])}
            >
              Next page
            </button>
          </div>
        </>
      )}
      {selected !== null && <TaskDetail task={selected} onChange={setSelected} />}
    </div>
  );
}
