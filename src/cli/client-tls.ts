/**
 * Client certificates for the CLI (`--cert`, `--key`, `--ca`): mutual TLS with an agent that
 * authenticates callers by certificate (`tandem serve --auth mtls`). The client itself is
 * web-standard and cannot present a certificate through the global `fetch`; the CLI passes a
 * `fetch` of its own, built on undici (Node's own HTTP client) with a TLS agent. undici is loaded
 * only when a certificate is given.
 */

import { readFileSync } from 'node:fs';
import type { Agent, fetch as undiciFetch } from 'undici';
import type { FetchFunction } from '../client.js';
import { UsageFailure } from './cli-values.js';

/** The TLS material of the flags. */
export interface ClientTlsFiles {
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly ca?: string | undefined;
}

function read(path: string, option: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageFailure(
      `${option} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

/**
 * A `fetch` that presents the client certificate (and trusts `ca`), or `undefined` without one.
 *
 * @throws UsageFailure when `--cert` and `--key` are not given together, or a file is unreadable.
 */
export function tlsFetchOf(files: ClientTlsFiles): FetchFunction | undefined {
  if (files.cert === undefined && files.key === undefined && files.ca === undefined) {
    return undefined;
  }
  if ((files.cert === undefined) !== (files.key === undefined)) {
    throw new UsageFailure('--cert and --key go together');
  }
  const connect = {
    ...(files.cert === undefined ? {} : { cert: read(files.cert, '--cert') }),
    ...(files.key === undefined ? {} : { key: read(files.key, '--key') }),
    ...(files.ca === undefined ? {} : { ca: read(files.ca, '--ca') }),
  };
  let agent: Promise<{ fetch: typeof undiciFetch; dispatcher: Agent }> | undefined;
  return async (request) => {
    agent ??= import('undici').then((undici) => ({
      fetch: undici.fetch,
      dispatcher: new undici.Agent({ connect }),
    }));
    const { fetch, dispatcher } = await agent;
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    const response = await fetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      body: hasBody ? await request.arrayBuffer() : null,
      signal: request.signal,
      dispatcher,
    });
    return response;
  };
}
