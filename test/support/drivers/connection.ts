/**
 * What a driver's calls carry besides the request: credentials (service parameters, which the
 * HTTP bindings send as headers and gRPC as metadata; query parameters, HTTP only) and client TLS
 * (a trusted CA, a client certificate for mutual TLS). And what a driver reports when the server
 * refused a call before its operation ran — authentication or a limit — which is no A2A error:
 * {@link CallRefusedError}, with what each binding carries of it.
 */

import { Agent, fetch as undiciFetch } from 'undici';

/** Client TLS material, PEM. */
export interface DriverTls {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/** Credentials and transport security of every call of a driver. */
export interface DriverConnection {
  /** Service parameters by lower-case name: `authorization`, `x-api-key`, `cookie`... */
  readonly headers?: Readonly<Record<string, string>>;
  /** Query parameters of every call (the HTTP bindings only: an API key in the query). */
  readonly query?: Readonly<Record<string, string>>;
  readonly tls?: DriverTls;
}

/** The transport-level status of a refusal, as gRPC names it (and HTTP+JSON's `error.status`). */
export type RefusalStatus = 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'RESOURCE_EXHAUSTED';

/** The server refused a call before (or instead of) its operation: not an A2A error. */
export class CallRefusedError extends Error {
  override readonly name = 'CallRefusedError';

  constructor(
    readonly status: RefusalStatus,
    message: string,
    readonly transport: {
      /** HTTP bindings: the HTTP status (401, 403, 429). */
      readonly httpStatus?: number;
      /** HTTP bindings: the `WWW-Authenticate` header. */
      readonly wwwAuthenticate?: string | null;
      /** `Retry-After` (HTTP header, or the binding's equivalent), in seconds. */
      readonly retryAfter?: string | null;
      /** The body (or status details) as received. */
      readonly raw: string;
    },
  ) {
    super(message);
  }
}

/** The refusal status of an HTTP status, or `undefined` for one that is no refusal. */
export function refusalStatusOf(httpStatus: number): RefusalStatus | undefined {
  switch (httpStatus) {
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    default:
      return undefined;
  }
}

/** The `fetch` of a connection: the global one, or undici's with a TLS agent. */
export function fetchOf(connection: DriverConnection): typeof fetch {
  const tls = connection.tls;
  if (tls === undefined) return fetch;
  const dispatcher = new Agent({ connect: { ...tls } });
  return ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    })) as unknown as typeof fetch;
}

/** `url` with the connection's query parameters. */
export function withQuery(url: string, connection: DriverConnection): string {
  if (connection.query === undefined) return url;
  const target = new URL(url);
  for (const [name, value] of Object.entries(connection.query)) {
    target.searchParams.set(name, value);
  }
  return target.toString();
}
