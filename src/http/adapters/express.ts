/**
 * The Express adapter: A2A agents as an Express middleware, e.g.
 * `app.use('/agents', createExpressMiddleware({ agents }))`. Express request and response objects
 * are `node:http` ones underneath, so this reuses the node bridge; only three Express additions
 * are read, through structural types, so that `express` stays an optional peer dependency and
 * is never imported.
 *
 * - Mounting: the core routes on `req.url` (relative to the mount point) and builds card URLs
 *   with `req.baseUrl`, so a card served under `/agents` names `/agents/...` endpoints.
 * - Fall-through: a path that is not an A2A route goes to `next()`, so the app's own routes and
 *   404 handler keep working.
 * - Body parsers: mount this middleware before `express.json()`. If a parser ran anyway, its
 *   result is used (a string or Buffer as is, a parsed object re-serialized), since the stream
 *   has been consumed.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHttpCore } from '../http-core.js';
import type { A2AHandlerOptions } from '../http-options.js';
import { NodeBridge } from '../node-bridge.js';
import type { ShutdownOptions } from './node.js';

/** The fields of an Express request this adapter reads. */
export interface ExpressRequestLike extends IncomingMessage {
  /** The path the middleware is mounted at (`''` at the root). */
  baseUrl?: string;
  /** Set by body-parsing middleware that consumed the stream. */
  body?: unknown;
}

/** Express's `next`. */
export type ExpressNext = (error?: unknown) => void;

/** An Express middleware serving A2A agents. */
export interface A2AExpressMiddleware {
  (req: ExpressRequestLike, res: ServerResponse, next: ExpressNext): void;
  /**
   * Shuts the agents' request handlers down (stop accepting work, let executions and streams
   * finish up to the deadline). Closing the HTTP server stays the application's job.
   */
  shutdown(options?: ShutdownOptions): Promise<void>;
}

function parsedBodyOf(req: ExpressRequestLike): string | Uint8Array | undefined {
  if (!req.readableEnded) return undefined;
  const body = req.body;
  if (body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  return JSON.stringify(body);
}

/**
 * Creates the middleware for `options.agents`.
 *
 * @throws ConfigurationError for invalid options or an invalid agent card.
 */
export function createExpressMiddleware(options: A2AHandlerOptions): A2AExpressMiddleware {
  const core = createHttpCore(options);
  const bridge = new NodeBridge(core);
  const middleware = (req: ExpressRequestLike, res: ServerResponse, next: ExpressNext): void => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    if (!core.hasRoute(query === -1 ? url : url.slice(0, query))) {
      next();
      return;
    }
    bridge.serve(req, res, { mountPath: req.baseUrl ?? '', parsedBody: parsedBodyOf(req) });
  };
  return Object.assign(middleware, {
    shutdown: (shutdownOptions: ShutdownOptions = {}) =>
      core.shutdownAgents({ deadlineMs: shutdownOptions.deadlineMs ?? 10_000 }),
  });
}
