/**
 * Wire: every request and response as it went over the wire — method or route, headers (their
 * credentials masked), body, status and timing; a stream's body grows as it arrives — and each
 * exchange as a command to copy: curl for HTTP, the equivalent `tandem` command.
 */

import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { WireEntry } from '../../../src/inspector/inspector-api.js';
import { useStore } from '../store.js';
import { HeaderTable } from './header-table.js';

function pretty(body: string | null): string {
  if (body === null || body === '') return '(no body)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Command(props: { label: string; command: string }): JSX.Element {
  const [copied, setCopied] = useState(false);
  return (
    <div class="command">
      <div class="row">
        <strong>{props.label}</strong>
        <button
          type="button"
          onClick={() => {
            navigator.clipboard.writeText(props.command).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre data-testid={`command-${props.label.split(' ')[0]?.toLowerCase() ?? ''}`}>
        {props.command}
      </pre>
    </div>
  );
}

function EntryDetail(props: { entry: WireEntry }): JSX.Element {
  const { entry } = props;
  return (
    <section class="wire-detail" aria-label="Exchange" data-testid="wire-detail">
      <h3>
        {entry.request.method.toUpperCase()} <code>{entry.request.url}</code>
      </h3>
      <h4>Request headers</h4>
      <HeaderTable headers={entry.request.headers} label="Request headers" />
      <h4>Request body</h4>
      <pre class="body">{pretty(entry.request.body)}</pre>
      {entry.error !== null && <p class="error-note">{entry.error}</p>}
      {entry.response !== null && (
        <>
          <h4>
            Response {entry.response.status}
            {entry.response.streaming && ' (streaming…)'}
          </h4>
          <HeaderTable headers={entry.response.headers} label="Response headers" />
          <h4>Response body{entry.response.truncated && ' (cut)'}</h4>
          <pre class="body" data-testid="response-body">
            {pretty(entry.response.body)}
          </pre>
        </>
      )}
      {entry.curl !== null && <Command label="curl" command={entry.curl} />}
      {entry.tandem !== null && <Command label="tandem command" command={entry.tandem} />}
    </section>
  );
}

export function WireView(): JSX.Element {
  const wire = useStore((s) => s.wire);
  const [selected, setSelected] = useState<number | null>(null);
  const entry = wire.find((e) => e.id === selected);
  return (
    <div class="view wire-view">
      <table class="wire">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Binding</th>
            <th scope="col">Operation</th>
            <th scope="col">Request</th>
            <th scope="col">Status</th>
            <th scope="col">ms</th>
          </tr>
        </thead>
        <tbody>
          {wire.map((e) => (
            <tr key={e.id} class={e.id === selected ? 'selected' : ''} data-testid="wire-row">
              <td>{e.id}</td>
              <td>{e.time.slice(11, 23)}</td>
              <td>{e.binding}</td>
              <td>
                <button type="button" class="link" onClick={() => setSelected(e.id)}>
                  {e.operation ?? e.request.method}
                </button>
              </td>
              <td>
                <code>
                  {e.request.method.toUpperCase()} {e.request.url}
                </code>
              </td>
              <td>{e.error !== null ? 'failed' : (e.response?.status ?? '…')}</td>
              <td>{e.durationMs === null ? '…' : Math.round(e.durationMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {wire.length === 0 && <p class="empty">Nothing on the wire yet.</p>}
      {entry !== undefined && <EntryDetail entry={entry} />}
    </div>
  );
}
