/**
 * How a failure shows: the message the `tandem` command would print for it, with the exit code
 * it would return, so that what the page says can be searched and compared with the CLI.
 */

import type { JSX } from 'preact';
import type { FailureView } from '../../../src/inspector/inspector-api.js';
import { update, useStore } from '../store.js';

/** A failure next to what it belongs to (a turn, a task). */
export function ErrorNote(props: { failure: FailureView }): JSX.Element {
  return (
    <p class="error-note" role="alert">
      <strong>tandem: {props.failure.message}</strong>{' '}
      <span class="muted">(exit {props.failure.exitCode})</span>
    </p>
  );
}

/** The page's banner for the last failed call. */
export function ErrorBanner(): JSX.Element | null {
  const error = useStore((s) => s.error);
  if (error === null) return null;
  return (
    <div class="error-banner" role="alert" data-testid="error-banner">
      <p>
        <strong>{error.action} failed.</strong> tandem: {error.failure.message}{' '}
        <span class="muted">(exit {error.failure.exitCode})</span>
      </p>
      <button
        type="button"
        aria-label="Dismiss the error"
        onClick={() => update(() => ({ error: null }))}
      >
        ×
      </button>
    </div>
  );
}
