/**
 * The gRPC binding, client half (spec 10): each operation is the method of the same name of
 * `lf.a2a.v1.A2AService`, its request encoded by `grpc-codec.ts`; the service parameters and
 * credentials of `call.headers` travel as metadata (spec 10.2); `SendStreamingMessage` and
 * `SubscribeToTask` are server streams of `StreamResponse`. Errors are read from the status and
 * its `grpc-status-details-bin` (`grpc-status.ts`, `fromGrpcStatus`) into the same typed A2A
 * errors as the other transports; a status that is no A2A error is a `ConnectionError`
 * (`UNAVAILABLE`: nobody answered) or a {@link GrpcStatusError}, an `HttpStatusError` with the HTTP
 * status gRPC maps the code to, so that retries and the CLI treat it like its HTTP equivalent.
 *
 * The interface URL is a bare `host:port` (as agent cards write gRPC interfaces). TLS is used when
 * the card was served over HTTPS or the client was given TLS material (`ClientOptions.tls`: a
 * client certificate, a CA), or when the URL says so (`grpcs://` or `https://`); `grpc://` or
 * `http://` force plaintext (`grpc-client-channel.ts`). A stream's events are numbered
 * from the `a2a-first-event-id` response header (the n-th message has id first + n, see
 * `grpc-event-ids.ts`), so that a dropped stream resumes like an SSE one: `SubscribeToTask` with
 * `last-event-id` metadata.
 *
 * The methods, their codecs, the metadata and the reading of errors, results and events are a
 * dialect (`grpc-client-dialect.ts`): `lf.a2a.v1.A2AService` by default, `a2a.v1.A2AService` of
 * A2A 0.3 for an interface at 0.3 (`v0_3/v03-grpc-client-transport.ts`), on the same channel,
 * calls and streams.
 *
 * Loaded only when a card selects gRPC (`client/transport-registry.ts`), so that the client is
 * importable without grpc-js.
 */

import { GRPC_BINDING } from '../../protocol/protocol-bindings.js';
import {
  Client,
  Metadata,
  status as Status,
  type ClientReadableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import type { A2AError } from '../../protocol/errors.js';
import type { OperationName } from '../../protocol/operations.js';
import type {
  ClientTransport,
  ClientTransportContext,
  StreamCall,
  StreamCallResult,
  StreamItem,
  StreamingOperationName,
  UnaryCall,
  UnaryCallResult,
  UnaryOperationName,
} from '../client/client-transport.js';
import { parseOperationResult, parseStreamPayload } from '../client/response-validation.js';
import {
  ConnectionError,
  HttpStatusError,
  ProtocolViolationError,
} from '../client/transport-errors.js';
import { channelFor, targetOf } from './grpc-client-channel.js';
import { A2A_GRPC, type GrpcClientMethod, type GrpcDialect } from './grpc-client-dialect.js';
import { FIRST_EVENT_ID_HEADER, firstEventIdOf } from './grpc-event-ids.js';
import { STATUS_DETAILS_KEY, decodeStatus, type DecodedStatus } from './grpc-status.js';

/** A gRPC status that is no A2A error (`UNAUTHENTICATED`, `RESOURCE_EXHAUSTED`...). */
export class GrpcStatusError extends HttpStatusError {
  constructor(
    /** The gRPC status code. */
    readonly grpcCode: number,
    status: number,
    message: string,
    retryAfter: string | undefined,
  ) {
    super(status, message, '', retryAfter);
  }
}

/** The HTTP status gRPC status codes correspond to (google.rpc.Code). */
function httpStatusOfCode(code: number): number {
  switch (code as Status) {
    case Status.INVALID_ARGUMENT:
    case Status.FAILED_PRECONDITION:
    case Status.OUT_OF_RANGE:
      return 400;
    case Status.UNAUTHENTICATED:
      return 401;
    case Status.PERMISSION_DENIED:
      return 403;
    case Status.NOT_FOUND:
      return 404;
    case Status.ABORTED:
    case Status.ALREADY_EXISTS:
      return 409;
    case Status.RESOURCE_EXHAUSTED:
      return 429;
    case Status.CANCELLED:
      return 499;
    case Status.UNIMPLEMENTED:
      return 501;
    case Status.UNAVAILABLE:
      return 503;
    case Status.DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

/** Headers that belong to HTTP, not to gRPC metadata. */
const NOT_METADATA = new Set([
  'content-type',
  'content-length',
  'host',
  'connection',
  'te',
  'user-agent',
  'accept',
]);

function metadataOf(headers: Headers): Metadata {
  const metadata = new Metadata();
  for (const [name, value] of headers) {
    if (NOT_METADATA.has(name) || name.startsWith('grpc-') || name.endsWith('-bin')) continue;
    metadata.set(name, value);
  }
  return metadata;
}

function headersOf(metadata: Metadata): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(metadata.getMap())) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

/** The typed error of a failed call. */
function errorOf(
  error: ServiceError,
  where: string,
  signal: AbortSignal,
  read: (code: number, status: DecodedStatus) => A2AError | undefined,
): Error {
  if (signal.aborted) return abortReasonOf(signal);
  let status: DecodedStatus = { code: error.code, message: error.details, details: [] };
  const details = error.metadata?.get(STATUS_DETAILS_KEY)[0];
  if (details instanceof Buffer) {
    try {
      status = decodeStatus(details);
    } catch (cause) {
      return new ProtocolViolationError(
        `${where} answered a ${STATUS_DETAILS_KEY} that is no google.rpc.Status`,
        [],
        { cause },
      );
    }
  }
  const a2a = read(error.code, status);
  if (a2a !== undefined) return a2a;
  if (error.code === Status.UNAVAILABLE) {
    return new ConnectionError(`${where} is unreachable: ${error.details}`, { cause: error });
  }
  const retryAfter = error.metadata?.get('retry-after')[0];
  return new GrpcStatusError(
    error.code,
    httpStatusOfCode(error.code),
    `gRPC status ${Status[error.code] ?? error.code} from ${where}: ${error.details}`,
    typeof retryAfter === 'string' ? retryAfter : undefined,
  );
}

/** Why the caller's signal aborted the call, as the error to reject with. */
function abortReasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException(String(reason), 'AbortError');
}

const identity = (value: Buffer): Buffer => value;

class GrpcClientTransport implements ClientTransport {
  readonly protocolBinding = GRPC_BINDING;
  readonly #client: Client;
  readonly #authority: string;
  readonly #dialect: GrpcDialect;

  constructor(context: ClientTransportContext, dialect: GrpcDialect) {
    this.#dialect = dialect;
    const target = targetOf(context.agentInterface.url, context.cardUrl, context.tls !== undefined);
    this.#authority = target.authority;
    const channel = channelFor(target, context.tls);
    this.#client = new Client(target.authority, channel.credentials, {
      ...channel.options,
      'grpc.max_receive_message_length': context.maxResponseBytes,
    });
  }

  #where(method: GrpcClientMethod): string {
    return `${this.#authority}${method.path}`;
  }

  #metadataOf(headers: Headers): Metadata {
    const edited = new Headers(headers);
    this.#dialect.editHeaders(edited);
    return metadataOf(edited);
  }

  #errorOf(
    operation: OperationName,
    error: ServiceError,
    where: string,
    signal: AbortSignal,
  ): Error {
    return errorOf(error, where, signal, (code, status) =>
      this.#dialect.errorOf(operation, code, status),
    );
  }

  unary<N extends UnaryOperationName>(call: UnaryCall<N>): Promise<UnaryCallResult<N>> {
    const method = this.#dialect.methodOf(call.operation);
    const where = this.#where(method);
    const { signal } = call;
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      let headers = new Headers();
      const request = this.#client.makeUnaryRequest(
        method.path,
        identity,
        identity,
        Buffer.from(method.request.encode(call.message)),
        this.#metadataOf(call.headers),
        {},
        (error, response) => {
          signal.removeEventListener('abort', cancel);
          if (error !== null) {
            reject(this.#errorOf(call.operation, error, where, signal));
            return;
          }
          try {
            const value = method.response.decode(response ?? Buffer.alloc(0));
            const result = this.#dialect.resultOf(call.operation, value, where);
            resolve({
              stream: false,
              message: parseOperationResult(call.operation, result, where),
              headers,
            });
          } catch (cause) {
            reject(asViolation(cause, where));
          }
        },
      );
      request.on('metadata', (metadata: Metadata) => {
        headers = headersOf(metadata);
      });
      const cancel = (): void => request.cancel();
      signal.addEventListener('abort', cancel, { once: true });
    });
  }

  /** The metadata of a streaming call: its headers, and where it resumes. */
  #streamMetadataOf(call: StreamCall): Metadata {
    const metadata = this.#metadataOf(call.headers);
    if (call.lastEventId !== undefined) metadata.set('last-event-id', call.lastEventId);
    return metadata;
  }

  async stream<N extends StreamingOperationName>(call: StreamCall<N>): Promise<StreamCallResult> {
    const method = this.#dialect.methodOf(call.operation);
    const where = this.#where(method);
    const { signal } = call;
    signal.throwIfAborted();
    const stream: ClientReadableStream<Buffer> = this.#client.makeServerStreamRequest(
      method.path,
      identity,
      identity,
      Buffer.from(method.request.encode(call.message)),
      this.#streamMetadataOf(call),
      {},
    );
    const cancel = (): void => stream.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    // The stream has started once the server sent its headers; an error answered before any
    // event is a trailers-only response, and rejects here.
    const queue: Buffer[] = [];
    let failure: ServiceError | undefined;
    let ended = false;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    stream.on('data', (chunk: Buffer) => {
      queue.push(chunk);
      notify();
    });
    stream.on('error', (error: ServiceError) => {
      failure = error;
      ended = true;
      notify();
    });
    stream.on('end', () => {
      ended = true;
      notify();
    });
    const headers = await new Promise<Headers>((resolve, reject) => {
      stream.once('metadata', (metadata: Metadata) => resolve(headersOf(metadata)));
      stream.once('end', () => resolve(new Headers()));
      stream.once('error', (error: ServiceError) => {
        signal.removeEventListener('abort', cancel);
        reject(this.#errorOf(call.operation, error, where, signal));
      });
    });
    const first = firstEventIdOf(headers.get(FIRST_EVENT_ID_HEADER));
    const dialect = this.#dialect;
    const failed = (error: ServiceError): Error =>
      this.#errorOf(call.operation, error, where, signal);
    const events = async function* (): AsyncGenerator<StreamItem> {
      let position = 0;
      try {
        for (;;) {
          const chunk = queue.shift();
          if (chunk !== undefined) {
            // Every message has its id, a skipped one too: the server numbers what it sends.
            const id = first === undefined ? undefined : String(first + position);
            position++;
            let read;
            try {
              read = dialect.eventOf(method.response.decode(chunk), where);
            } catch (cause) {
              throw asViolation(cause, where);
            }
            if (read === undefined) continue;
            const payload = parseStreamPayload(read.payload, where);
            yield id === undefined ? { payload } : { id, payload };
            // A stream is over once an event says so (0.3's `final`), whether or not the agent
            // closes it.
            if (read.final) return;
            continue;
          }
          if (failure !== undefined) throw failed(failure);
          if (ended) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      } finally {
        signal.removeEventListener('abort', cancel);
        if (!ended) stream.cancel();
      }
    };
    return { stream: true, message: events(), headers };
  }
}

function asViolation(cause: unknown, where: string): Error {
  if (cause instanceof ProtocolViolationError) return cause;
  return new ProtocolViolationError(
    `${where} answered a message that is not valid protobuf: ${cause instanceof Error ? cause.message : String(cause)}`,
    [],
    { cause },
  );
}

/** Creates the gRPC transport of one interface. */
export function createGrpcClientTransport(context: ClientTransportContext): ClientTransport {
  return new GrpcClientTransport(context, A2A_GRPC);
}

/**
 * Creates a gRPC transport that speaks `dialect` (the same channel, calls, streams and
 * validation as {@link createGrpcClientTransport}, another service and its codecs).
 */
export function createGrpcDialectTransport(
  context: ClientTransportContext,
  dialect: GrpcDialect,
): ClientTransport {
  return new GrpcClientTransport(context, dialect);
}
