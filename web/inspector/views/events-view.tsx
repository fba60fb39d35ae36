/**
 * Events: every stream event and push delivery in order, with its event id, time, kind and task,
 * filterable by kind or text, each with its raw JSON. A stream the client resumed shows where:
 * a marker with the `Last-Event-ID` it resumed after. From any event with an id, a running task
 * can be followed again from that point.
 */

import { Fragment, type JSX } from 'preact';
import { useState } from 'preact/hooks';
import { subscribeTask } from '../task-actions.js';
import { useStore } from '../store.js';
import { JsonTree } from './json-tree.js';

const KINDS = ['all', 'task', 'statusUpdate', 'artifactUpdate', 'message', 'resumed', 'push'];

export function EventsView(): JSX.Element {
  const timeline = useStore((s) => s.timeline);
  const [kind, setKind] = useState('all');
  const [text, setText] = useState('');
  const [open, setOpen] = useState<number | null>(null);
  const shown = timeline.filter(
    (entry) =>
      (kind === 'all' || entry.kind === kind || (kind === 'push' && entry.source === 'push')) &&
      (text === '' || JSON.stringify(entry).toLowerCase().includes(text.toLowerCase())),
  );
  return (
    <div class="view events-view">
      <div class="row filters">
        <label>
          Kind
          <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label>
          Filter
          <input
            name="filter"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            placeholder="task id, text…"
          />
        </label>
        <p class="muted">
          {shown.length} of {timeline.length}
        </p>
      </div>
      <table class="timeline">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Event id</th>
            <th scope="col">Kind</th>
            <th scope="col">Source</th>
            <th scope="col">Task</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((entry) => (
            <Fragment key={entry.seq}>
              <tr class={`event event-${entry.kind}`} data-testid="event-row">
                <td>{entry.seq}</td>
                <td>{entry.time.slice(11, 23)}</td>
                <td>
                  <code>{entry.eventId ?? '–'}</code>
                </td>
                <td>
                  {entry.kind === 'resumed' ? (
                    <strong>resumed after {entry.eventId}</strong>
                  ) : (
                    entry.kind
                  )}
                </td>
                <td>{entry.source}</td>
                <td>
                  <code>{entry.taskId?.slice(0, 8) ?? '–'}</code>
                </td>
                <td>
                  <button
                    type="button"
                    onClick={() => setOpen(open === entry.seq ? null : entry.seq)}
                    aria-expanded={open === entry.seq}
                  >
                    {open === entry.seq ? 'Hide' : 'Raw'}
                  </button>
                  {entry.source !== 'push' &&
                    entry.eventId !== null &&
                    entry.taskId !== null &&
                    entry.kind !== 'resumed' && (
                      <button
                        type="button"
                        onClick={() =>
                          void subscribeTask(entry.taskId ?? '', entry.eventId ?? undefined)
                        }
                      >
                        Resume after this
                      </button>
                    )}
                </td>
              </tr>
              {open === entry.seq && (
                <tr>
                  <td colSpan={7}>
                    <JsonTree value={entry.raw} open={3} label={`event ${entry.seq}`} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {timeline.length === 0 && (
        <p class="empty">No events yet: stream a message or subscribe to a task.</p>
      )}
    </div>
  );
}
