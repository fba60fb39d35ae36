/**
 * The inspector's page: loads what the backend holds (the connection, the wire log, deliveries),
 * restores what this tab saved before a reload, follows the live feed, and renders.
 */

import { render } from 'preact';
import type { SessionView } from '../../src/inspector/inspector-api.js';
import { call, failureOf } from './api.js';
import { App } from './app.js';
import { followLiveFeed } from './live-feed.js';
import { restore, showError, update } from './store.js';

async function loadSession(first: boolean): Promise<void> {
  try {
    const session = await call<SessionView>('session');
    update(() => ({
      connection: session.connection,
      wire: session.wire,
      deliveries: session.deliveries,
      checkAvailable: session.checkAvailable,
    }));
    if (first) restore(session.connection);
  } catch (error) {
    showError('Load the session', failureOf(error));
  }
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
let first = true;
void followLiveFeed(() => {
  void loadSession(first);
  first = false;
});
