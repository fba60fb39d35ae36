/**
 * The inspector as one Node request listener under a base path: the page, its files, the API and
 * the push receiver. `tandem inspect` serves it on a port of its own; a server can mount it under
 * a path of its own (`/inspector`) by handing it the requests below that path.
 *
 * Every request must name one of the inspector's hosts (DNS rebinding), and every API call must
 * carry the run's token from the same origin (CSRF); the receiver, which agents POST to, needs
 * only the host check and a push token of a config the inspector created.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FetchFunction } from '../client.js';
import { handleApi } from './api-routes.js';
import type { CheckLoader } from './check-runner.js';
import type { ConnectRequest, ConnectionView, FailureView } from './inspector-api.js';
import { InspectorSession } from './inspector-session.js';
import { createRequestGuard, type GuardRefusal, type RequestGuard } from './request-guard.js';
import { readPageAssets, SECURITY_HEADERS, sendAsset, sendPage } from './static-assets.js';

/** Options of {@link createInspectorApp}. */
export interface InspectorAppOptions {
  /** The folder of the built page (`dist/inspector/page/`). */
  readonly assets: URL;
  /** Where the app is mounted: `''` at the root, or a path like `/inspector`. */
  readonly basePath?: string;
  /** The `host:port` values the app answers to (see `allowedHostsFor`). */
  readonly allowedHosts: () => ReadonlySet<string>;
  /** The app's own URL (with the base path), as agents reach it: for the push receiver. */
  readonly publicUrl: () => string;
  /** The message the `tandem` command prints for an error, and its exit code. */
  readonly describeError: (error: unknown) => FailureView;
  /** The checker of the Check view; without it the view says it is not available. */
  readonly loadCheck?: CheckLoader;
  /** The fetch the inspector's clients use; the global one by default. */
  readonly fetch?: FetchFunction;
}

/** A running inspector app. */
export interface InspectorApp {
  /** The run's token (written into the page). */
  readonly token: string;
  /** Handles a request whose path is at or below the base path. */
  readonly listener: (request: IncomingMessage, response: ServerResponse) => void;
  /** Connects at start-up, as `tandem inspect <url>` does. */
  connect(request: ConnectRequest): Promise<ConnectionView>;
}

/** The receiver's path below the base path. */
export const RECEIVER_PATH = '/push/receiver';

function refuse(response: ServerResponse, refusal: GuardRefusal): void {
  response.writeHead(refusal.status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
  });
  response.end(
    JSON.stringify({ failure: { type: 'Refused', message: refusal.message, exitCode: 2 } }),
  );
}

/** Creates the app; reads the page at once, so that a missing build fails here. */
export function createInspectorApp(options: InspectorAppOptions): InspectorApp {
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const assets = readPageAssets(options.assets);
  const guard: RequestGuard = createRequestGuard({ allowedHosts: options.allowedHosts });
  const session = new InspectorSession({
    receiverUrl: () => `${options.publicUrl().replace(/\/+$/, '')}${RECEIVER_PATH}`,
    describe: options.describeError,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const context = {
    session,
    describe: options.describeError,
    loadCheck: options.loadCheck,
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const hostRefusal = guard.checkHost(request);
    if (hostRefusal !== undefined) return refuse(response, hostRefusal);
    const url = new URL(request.url ?? '/', 'http://inspector');
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : null;
    if (path === null || (path !== '' && !path.startsWith('/'))) {
      response.writeHead(404).end();
      return;
    }
    if (path === RECEIVER_PATH) return session.push.handle(request, response);
    if (path.startsWith('/api/')) {
      const refusal = guard.checkApiCall(request);
      if (refusal !== undefined) return refuse(response, refusal);
      return handleApi(path.slice('/api/'.length), request, response, context);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    if (path === '' || path === '/') {
      return sendPage(response, assets, { token: guard.token, basePath });
    }
    if (path.startsWith('/assets/') && sendAsset(response, assets, path.slice('/assets/'.length))) {
      return;
    }
    response.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain' });
    response.end('Not found');
  };

  return {
    token: guard.token,
    listener: (request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          response.end(JSON.stringify({ failure: options.describeError(error) }));
        } else {
          response.destroy(error instanceof Error ? error : undefined);
        }
      });
    },
    connect: async (request) => (await session.connect(request)).view,
  };
}
