/**
 * Check: runs `tandem check` against the agent (read-only with "safe") and shows the report as
 * it comes — a progress count, then the results grouped by area, each failure and warning with
 * its detail, spec section, and the request and response that show it.
 */

import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { CheckLine, CheckResultView } from '../../../src/inspector/inspector-api.js';
import { failureOf, stream } from '../api.js';
import { getState, update, useStore } from '../store.js';
import { ErrorNote } from './error-banner.js';

const MARKS: Record<CheckResultView['status'], string> = {
  pass: '✓',
  fail: '✗',
  skip: '–',
  warn: '!',
};

async function runCheck(safe: boolean): Promise<void> {
  const { connection } = getState();
  if (connection === null) return;
  update(() => ({ check: { running: true, results: [] } }));
  try {
    for await (const line of stream<CheckLine>('check', { connectionId: connection.id, safe })) {
      switch (line.kind) {
        case 'plan':
          update((s) => ({ check: { ...s.check, areas: line.areas, total: line.total } }));
          break;
        case 'result':
          update((s) => ({ check: { ...s.check, results: [...s.check.results, line.result] } }));
          break;
        case 'report':
          update((s) => ({
            check: { ...s.check, summary: line.summary, versions: line.versions },
          }));
          break;
        case 'error':
          update((s) => ({ check: { ...s.check, failure: line.failure } }));
          break;
      }
    }
  } catch (error) {
    update((s) => ({ check: { ...s.check, failure: failureOf(error) } }));
  } finally {
    update((s) => ({ check: { ...s.check, running: false } }));
  }
}

function headerLines(headers: Readonly<Record<string, string>>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

/** The request and response that show a result. */
function Exchange(props: { result: CheckResultView }): JSX.Element | null {
  const { request, response } = props.result;
  if (request === undefined && response === undefined) return null;
  return (
    <details class="exchange" data-testid="check-exchange">
      <summary>
        {request === undefined ? 'Response' : `${request.method} ${request.url}`}
        {response !== undefined && ` → ${response.status}`}
      </summary>
      {request !== undefined && (
        <pre>
          {`${request.method} ${request.url}\n${headerLines(request.headers)}${request.body === undefined ? '' : `\n\n${request.body}`}`}
        </pre>
      )}
      {response !== undefined && (
        <pre>
          {`${response.status}\n${headerLines(response.headers)}${response.body === undefined ? '' : `\n\n${response.body}`}`}
        </pre>
      )}
    </details>
  );
}

export function CheckView(): JSX.Element {
  const connection = useStore((s) => s.connection);
  const available = useStore((s) => s.checkAvailable);
  const check = useStore((s) => s.check);
  const [safe, setSafe] = useState(false);
  if (connection === null) return <p class="view empty">Connect to an agent first.</p>;
  const order = check.areas ?? [];
  const groups = new Map<string, CheckResultView[]>(order.map((a) => [a.area, []]));
  for (const result of check.results) {
    groups.set(result.area, [...(groups.get(result.area) ?? []), result]);
  }
  const titleOf = (area: string): string => order.find((a) => a.area === area)?.title ?? area;
  return (
    <div class="view check-view">
      {!available && (
        <p class="muted" role="status">
          This build has no conformance checker (tandem check): the Check view cannot run.
        </p>
      )}
      <div class="row">
        <label class="inline">
          <input
            type="checkbox"
            name="safe"
            checked={safe}
            onChange={(e) => setSafe(e.currentTarget.checked)}
          />
          Safe (read-only: creates no task)
        </label>
        <button
          type="button"
          class="primary"
          disabled={!available || check.running}
          onClick={() => void runCheck(safe)}
        >
          {check.running ? 'Checking…' : 'Run the checks'}
        </button>
        {check.running && check.total !== undefined && (
          <span class="muted" role="status">
            {check.results.length} of {check.total}
          </span>
        )}
      </div>
      {check.summary !== undefined && (
        <p data-testid="check-summary">
          {check.summary.passed} passed, {check.summary.failed} failed, {check.summary.skipped}{' '}
          skipped, {check.summary.warnings} warnings
          {check.versions !== undefined && ` · spoke ${check.versions.join(', ')}`}
        </p>
      )}
      {check.failure !== undefined && <ErrorNote failure={check.failure} />}
      {[...groups]
        .filter(([, results]) => results.length > 0)
        .map(([area, results]) => (
          <section key={area} class="check-area" data-testid="check-area">
            <h3>{titleOf(area)}</h3>
            <ul class="checks">
              {results.map((result, index) => (
                <li
                  key={`${result.id}-${result.binding ?? 'card'}-${index}`}
                  class={`check check-${result.status}`}
                  data-testid="check-result"
                >
                  <span class="mark" aria-label={result.status}>
                    {MARKS[result.status]}
                  </span>{' '}
                  <code>{result.id}</code> {result.title}{' '}
                  <span class="muted">
                    (
                    {[result.binding, result.version, result.level, result.section]
                      .filter((part) => part !== null && part !== '')
                      .join(', ')}
                    )
                  </span>
                  {result.status !== 'pass' && result.detail !== '' && (
                    <p class="detail">{result.detail}</p>
                  )}
                  {(result.status === 'fail' || result.status === 'warn') && (
                    <Exchange result={result} />
                  )}
                </li>
              ))}
            </ul>
          </section>
        ))}
    </div>
  );
}
