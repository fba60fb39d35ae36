/**
 * Client certificates for the CLI (`--cert`, `--key`, `--ca`): mutual TLS with an agent that
 * authenticates callers by certificate (`tandem serve --auth mtls`), on every binding. The client
 * itself is web-standard and cannot present a certificate through the global `fetch`; for the
 * HTTP bindings and the card the CLI passes a `fetch` of its own, built on undici (Node's own HTTP
 * client) with a TLS agent, loaded only when a flag is given. The gRPC transport opens its own
 * connections and takes the same material as `ClientOptions.tls`.
 */

import { readFileSync } from 'node:fs';
import type { Agent, fetch as undiciFetch } from 'undici';
import type { ClientTls, FetchFunction } from '../client.js';
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

/** The client options of the flags: the same material for `fetch` and for gRPC. */
export interface CliClientTls {
  readonly fetch: FetchFunction;
  readonly tls: ClientTls;
}

/**
 * The client certificate (and `ca` to trust) as client options, or `undefined` without a flag.
 *
 * @throws UsageFailure when `--cert` and `--key` are not given together, or a file is unreadable.
 */
export function clientTlsOf(files: ClientTlsFiles): CliClientTls | undefined {
  if (files.cert === undefined && files.key === undefined && files.ca === undefined) {
    return undefined;
  }
  if ((files.cert === undefined) !== (files.key === undefined)) {
    throw new UsageFailure('--cert and --key go together');
  }
  const connect: PemFiles = {
    ...(files.cert === undefined ? {} : { cert: read(files.cert, '--cert') }),
    ...(files.key === undefined ? {} : { key: read(files.key, '--key') }),
    ...(files.ca === undefined ? {} : { ca: read(files.ca, '--ca') }),
  };
  return { fetch: tlsFetch(connect), tls: connect };
}

/** PEM text as read from the flags' files. */
interface PemFiles {
  readonly cert?: string;
  readonly key?: string;
  readonly ca?: string;
}

/** A `fetch` that connects with `connect` (undici's TLS options). */
function tlsFetch(connect: PemFiles): FetchFunction {
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
