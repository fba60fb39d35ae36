/**
 * The checker's gRPC: calls made with grpc-js on raw bytes, answers kept as they came — the
 * status code and message, the response metadata and the trailers (with the binary
 * `grpc-status-details-bin`) — rather than read into typed errors as the client does. The
 * messages are encoded and decoded by the caller with the protocol's codecs. grpc-js is loaded
 * only when a gRPC interface is checked.
 */

import type * as GrpcJs from '@grpc/grpc-js';
import type * as GrpcChannel from '../../bindings/grpc/grpc-client-channel.js';
import type { Client, Metadata, ServiceError, StatusObject } from '@grpc/grpc-js';
import type { ClientTls } from '../../bindings/client/client-transport.js';

/** One call to make. */
export interface GrpcProbeCall {
  /** The interface URL (`host:port`, `grpc://`, `grpcs://`...). */
  readonly target: string;
  /** `/package.Service/Method`. */
  readonly path: string;
  readonly request: Uint8Array;
  readonly metadata: ReadonlyArray<readonly [string, string]>;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
}

/** The status a call ended with. */
export interface GrpcStatus {
  readonly code: number;
  readonly message: string;
  /** The trailers, `-bin` values as base64. */
  readonly trailers: ReadonlyArray<readonly [string, string]>;
  /** `grpc-status-details-bin`, when the trailers hold it. */
  readonly details: Uint8Array | undefined;
}

/** What a unary call answered. */
export interface GrpcUnaryAnswer {
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly status: GrpcStatus;
  /** The response message, when the call succeeded. */
  readonly response: Uint8Array | undefined;
}

/** A server stream, read message by message. */
export interface GrpcStreamAnswer {
  /** The response metadata (empty when the call ended without sending any). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The next message, or the status the stream ended with. */
  next(): Promise<{ readonly message: Uint8Array } | { readonly status: GrpcStatus }>;
  cancel(): void;
}

type GrpcModule = typeof GrpcJs;
type ChannelModule = typeof GrpcChannel;

function pairsOf(metadata: Metadata | undefined): [string, string][] {
  if (metadata === undefined) return [];
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(metadata.getMap())) {
    pairs.push([name, typeof value === 'string' ? value : Buffer.from(value).toString('base64')]);
  }
  return pairs;
}

function statusOf(status: StatusObject | ServiceError): GrpcStatus {
  const details = status.metadata?.get('grpc-status-details-bin')[0];
  return {
    code: status.code,
    message: status.details,
    trailers: pairsOf(status.metadata),
    details: details instanceof Buffer ? new Uint8Array(details) : undefined,
  };
}

const identity = (value: Buffer): Buffer => value;

/** The gRPC side of one check run: a client per target. */
export class GrpcWire {
  readonly #tls: ClientTls | undefined;
  readonly #cardUrl: string;
  readonly #clients = new Map<string, Client>();
  #modules: Promise<{ grpc: GrpcModule; channel: ChannelModule }> | undefined;

  constructor(tls: ClientTls | undefined, cardUrl: string) {
    this.#tls = tls;
    this.#cardUrl = cardUrl;
  }

  async #client(target: string): Promise<{ client: Client; grpc: GrpcModule }> {
    this.#modules ??= Promise.all([
      import('@grpc/grpc-js'),
      import('../../bindings/grpc/grpc-client-channel.js'),
    ]).then(([grpc, channel]) => ({ grpc, channel }));
    const { grpc, channel: channels } = await this.#modules;
    let client = this.#clients.get(target);
    if (client === undefined) {
      const resolved = channels.targetOf(target, this.#cardUrl, this.#tls !== undefined);
      const channel = channels.channelFor(resolved, this.#tls);
      client = new grpc.Client(resolved.authority, channel.credentials, channel.options);
      this.#clients.set(target, client);
    }
    return { client, grpc };
  }

  #metadata(grpc: GrpcModule, pairs: GrpcProbeCall['metadata']): Metadata {
    const metadata = new grpc.Metadata();
    for (const [name, value] of pairs) metadata.add(name.toLowerCase(), value);
    return metadata;
  }

  /** Makes a unary call; resolves with whatever status it ends with. */
  async unary(call: GrpcProbeCall): Promise<GrpcUnaryAnswer> {
    const { client, grpc } = await this.#client(call.target);
    call.signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      let headers: [string, string][] = [];
      let response: Uint8Array | undefined;
      const request = client.makeUnaryRequest(
        call.path,
        identity,
        identity,
        Buffer.from(call.request),
        this.#metadata(grpc, call.metadata),
        { deadline: Date.now() + call.timeoutMs },
        (_error, value) => {
          if (value !== undefined) response = new Uint8Array(value);
        },
      );
      const abort = (): void => request.cancel();
      call.signal.addEventListener('abort', abort, { once: true });
      request.on('metadata', (metadata: Metadata) => {
        headers = pairsOf(metadata);
      });
      request.on('status', (status: StatusObject) => {
        call.signal.removeEventListener('abort', abort);
        if (call.signal.aborted) {
          reject(call.signal.reason as Error);
          return;
        }
        // The callback runs before the status event; the response is set by then.
        resolve({ headers, status: statusOf(status), response });
      });
    });
  }

  /** Opens a server stream; resolves once the server sent its metadata or ended the call. */
  async stream(call: GrpcProbeCall): Promise<GrpcStreamAnswer> {
    const { client, grpc } = await this.#client(call.target);
    call.signal.throwIfAborted();
    const stream = client.makeServerStreamRequest(
      call.path,
      identity,
      identity,
      Buffer.from(call.request),
      this.#metadata(grpc, call.metadata),
      {},
    );
    const messages: Uint8Array[] = [];
    let ended: GrpcStatus | undefined;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const abort = (): void => stream.cancel();
    call.signal.addEventListener('abort', abort, { once: true });
    stream.on('data', (chunk: Buffer) => {
      messages.push(new Uint8Array(chunk));
      notify();
    });
    // Errors come with the status event as well; listening keeps grpc-js from throwing them.
    stream.on('error', () => undefined);
    stream.on('status', (status: StatusObject) => {
      call.signal.removeEventListener('abort', abort);
      ended = statusOf(status);
      notify();
    });
    const headers = await new Promise<[string, string][]>((resolve) => {
      stream.once('metadata', (metadata: Metadata) => resolve(pairsOf(metadata)));
      stream.once('status', () => resolve([]));
    });
    return {
      headers,
      next: async () => {
        for (;;) {
          const message = messages.shift();
          if (message !== undefined) return { message };
          if (ended !== undefined) return { status: ended };
          if (call.signal.aborted) throw call.signal.reason as Error;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      },
      cancel: () => stream.cancel(),
    };
  }

  /** Closes every channel. */
  close(): void {
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }
}
