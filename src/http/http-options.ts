/**
 * Options of the A2A HTTP handler, shared by the fetch handler and every adapter, and their
 * resolution: defaults applied and every value checked once at startup, so that a mistake is a
 * {@link ConfigurationError} naming the option instead of a broken request later.
 */

import { ConfigurationError } from '../protocol/local-errors.js';
import { integerOption } from '../protocol/integer-option.js';
import { silentLogger, type Logger } from '../runtime/logger.js';
import type { A2ARequestHandler } from '../runtime/request-handler.js';

/** One agent served by the handler. */
export interface A2AAgentMount {
  /**
   * Where the agent lives: `''` (or `'/'`) for the root, else a path like `/agents/dice`. Its
   * card is served at `<path>/.well-known/agent-card.json`, its JSON-RPC endpoint at
   * `<path><rpcPath>`.
   */
  readonly path: string;
  readonly handler: A2ARequestHandler;
  /** Overrides {@link A2AHandlerOptions.rpcPath} for this agent. */
  readonly rpcPath?: string | undefined;
}

/** CORS policy: `'*'` (any origin), a list of allowed origins, or `false` (no CORS headers). */
export type CorsOrigins = '*' | readonly string[] | false;

/** Options of `createA2AHandler` and the adapters. */
export interface A2AHandlerOptions {
  /** The agents to serve; at least one. */
  readonly agents: readonly A2AAgentMount[];
  /** The JSON-RPC endpoint below each agent's path. Default `/a2a`. */
  readonly rpcPath?: string | undefined;
  /**
   * The externally visible URL of the handler's root (e.g. `https://agents.example.com/prefix`),
   * used for the absolute URLs in agent cards. Without it they are derived from each request's
   * `X-Forwarded-Proto` / `X-Forwarded-Host` or `Host` headers.
   */
  readonly publicUrl?: string | undefined;
  /** Largest accepted request body, in bytes. Default 4 MiB. */
  readonly maxBodyBytes?: number | undefined;
  /** Interval of SSE heartbeat comments on idle streams, in ms; 0 disables. Default 15000. */
  readonly heartbeatMs?: number | undefined;
  /** Request log (one `info` line per request) and unexpected errors. Default: silent. */
  readonly logger?: Logger | undefined;
  /** `Cache-Control: max-age` of agent cards, in seconds. Default 300. */
  readonly cardMaxAgeSeconds?: number | undefined;
  /** Origins allowed to call the agents from a browser. Default `'*'`. */
  readonly corsOrigins?: CorsOrigins | undefined;
}

/** Options with defaults applied and values checked. */
export interface ResolvedHttpOptions {
  readonly agents: readonly ResolvedAgentMount[];
  readonly publicUrl: string | undefined;
  readonly maxBodyBytes: number;
  readonly heartbeatMs: number;
  readonly logger: Logger;
  readonly cardMaxAgeSeconds: number;
  readonly corsOrigins: CorsOrigins;
}

/** An agent mount with normalized paths. */
export interface ResolvedAgentMount {
  /** `''` for the root, else `/x/y` without a trailing slash. */
  readonly path: string;
  readonly rpcPath: string;
  readonly handler: A2ARequestHandler;
}

/** The JSON-RPC endpoint below an agent's path when none is configured. */
export const DEFAULT_RPC_PATH = '/a2a';
/** 4 MiB: far above any real A2A message, small enough that a flood cannot exhaust memory. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** 15 s: below the 30-60 s idle timeouts of common proxies and load balancers. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** 5 minutes: cards change rarely, and a client revalidates cheaply with the ETag. */
export const DEFAULT_CARD_MAX_AGE_SECONDS = 300;

const PATH_PATTERN = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*$/;

function normalizePath(option: string, value: string): string {
  const path = value === '/' ? '' : value.endsWith('/') ? value.slice(0, -1) : value;
  if (!PATH_PATTERN.test(path)) {
    throw new ConfigurationError(
      `${option} ${JSON.stringify(value)} is not a URL path; use '' for the root or a path ` +
        `like '/agents/dice' (no query, no empty segments)`,
    );
  }
  return path;
}

function resolvePublicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new ConfigurationError(
      `publicUrl ${JSON.stringify(value)} is not an absolute URL; use e.g. https://agents.example.com`,
      { cause: error },
    );
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new ConfigurationError(
      `publicUrl ${JSON.stringify(value)} must be an http(s) URL without query or fragment`,
    );
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/**
 * Applies defaults and checks every option.
 *
 * @throws ConfigurationError naming the offending option.
 */
export function resolveHttpOptions(options: A2AHandlerOptions): ResolvedHttpOptions {
  if (options.agents.length === 0) {
    throw new ConfigurationError(
      'agents is empty; mount at least one agent: { path: "", handler }',
    );
  }
  const defaultRpcPath = normalizePath('rpcPath', options.rpcPath ?? DEFAULT_RPC_PATH);
  const agents = options.agents.map((agent, index) => {
    const rpcPath =
      agent.rpcPath === undefined
        ? defaultRpcPath
        : normalizePath(`agents[${index}].rpcPath`, agent.rpcPath);
    if (rpcPath === '') {
      throw new ConfigurationError(
        `agents[${index}].rpcPath must not be empty: the JSON-RPC endpoint needs a path of its own, e.g. '/a2a'`,
      );
    }
    return {
      path: normalizePath(`agents[${index}].path`, agent.path),
      rpcPath,
      handler: agent.handler,
    };
  });
  const corsOrigins = options.corsOrigins ?? '*';
  if (Array.isArray(corsOrigins)) {
    for (const origin of corsOrigins as readonly string[]) {
      if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
        throw new ConfigurationError(
          `corsOrigins entry ${JSON.stringify(origin)} is not an origin; use e.g. 'https://app.example.com' (no path, no trailing slash)`,
        );
      }
    }
  }
  return {
    agents,
    publicUrl: resolvePublicUrl(options.publicUrl),
    maxBodyBytes: integerOption(
      'maxBodyBytes',
      options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      1,
      'bytes',
    ),
    heartbeatMs: integerOption('heartbeatMs', options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, 0, 'ms'),
    logger: options.logger ?? silentLogger,
    cardMaxAgeSeconds: integerOption(
      'cardMaxAgeSeconds',
      options.cardMaxAgeSeconds ?? DEFAULT_CARD_MAX_AGE_SECONDS,
      0,
      'seconds',
    ),
    corsOrigins,
  };
}

/** `4 MiB`, `512 KiB`, `100 bytes`: for messages about the body limit. */
export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
