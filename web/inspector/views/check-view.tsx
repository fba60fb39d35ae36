/**
 * Check: runs `tandem check` against the agent (read-only with "safe") and shows the report as
 * it comes, grouped by area, each failure with its detail, spec section and the request and
 * response that show it.
 */

import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { CheckLine, CheckResultView } from '../../../src/inspector/inspector-api.js';
import { failureOf, stream } from '../api.js';
import { getState, update, useStore } from '../store.js';
import { ErrorNote } from './error-banner.js';
import { JsonTree } from './json-tree.js';

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
      if (line.kind === 'result') {
        update((s) => ({ check: { ...s.check, results: [...s.check.results, line.result] } }));
      } else if (line.kind === 'report') {
        update((s) => ({ check: { ...s.check, summary: line.summary, versions: line.versions } }));
      } else {
        update((s) => ({ check: { ...s.check, failure: line.failure } }));
      }
    }
  } catch (error) {
    update((s) => ({ check: { ...s.check, failure: failureOf(error) } }));
  } finally {
    update((s) => ({ check: { ...s.check, running: false } }));
  }
}

function areaOf(result: CheckResultView): string {
  return result.id.split(/[.:/]/)[0] ?? result.id;
}

export function CheckView(): JSX.Element {
  const connection = useStore((s) => s.connection);
  const available = useStore((s) => s.checkAvailable);
  const check = useStore((s) => s.check);
  const [safe, setSafe] = useState(false);
  if (connection === null) return <p class="view empty">Connect to an agent first.</p>;
  const areas = new Map<string, CheckResultView[]>();
  for (const result of check.results) {
    const area = areaOf(result);
    areas.set(area, [...(areas.get(area) ?? []), result]);
  }
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
      </div>
      {check.summary !== undefined && (
        <p data-testid="check-summary">
          {check.summary.passed} passed, {check.summary.failed} failed, {check.summary.skipped}{' '}
          skipped, {check.summary.warnings} warnings
          {check.versions !== undefined && ` · spoke ${check.versions.join(', ')}`}
        </p>
      )}
      {check.failure !== undefined && <ErrorNote failure={check.failure} />}
      {[...areas].map(([area, results]) => (
        <section key={area} class="check-area">
          <h3>{area}</h3>
          <ul class="checks">
            {results.map((result, index) => (
              <li
                key={`${result.id}-${result.binding}-${index}`}
                class={`check check-${result.status}`}
                data-testid="check-result"
              >
                <span class="mark" aria-label={result.status}>
                  {MARKS[result.status]}
                </span>{' '}
                <code>{result.id}</code> {result.title}{' '}
                <span class="muted">
                  ({result.binding}, {result.level}, {result.section})
                </span>
                {result.status !== 'pass' && result.detail !== '' && (
                  <p class="detail">{result.detail}</p>
                )}
                {(result.request !== undefined || result.response !== undefined) &&
                  result.status === 'fail' && (
                    <details>
                      <summary>Request and response</summary>
                      <JsonTree
                        value={{ request: result.request, response: result.response }}
                        label="exchange"
                      />
                    </details>
                  )}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
