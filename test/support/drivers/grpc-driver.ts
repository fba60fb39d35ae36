/**
 * The gRPC binding (spec 10) on the raw wire: grpc-js calls of `lf.a2a.v1.A2AService/<operation>`
 * at the interface's `host:port`, messages encoded with the binding's protobuf codec, the
 * service parameters as metadata (spec 10.2), errors decoded from the status and its
 * `grpc-status-details-bin` with `fromGrpcStatus`. Strict: an A2A error's status code must be the
 * one of spec 5.4, and its `ErrorInfo` must be there; a server stream's events are numbered from
 * its `a2a-first-event-id` response header (the n-th message has id first + n).
 */

import {
  Client,
  Metadata,
  credentials,
  status,
  type ClientReadableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import {
  fromGrpcStatus,
  grpcCodeOf,
  type A2AError,
  type OperationRequest,
  type OperationResponse,
  type StreamResponse,
} from '../../../src/index.js';
import { grpcMethodOf } from '../../../src/bindings/grpc/grpc-codec.js';
import {
  FIRST_EVENT_ID_HEADER,
  firstEventIdOf,
} from '../../../src/bindings/grpc/grpc-event-ids.js';
import { decodeStatus, STATUS_DETAILS_KEY } from '../../../src/bindings/grpc/grpc-status.js';
import { preciseNow } from '../sync.js';
import {
  BindingViolationError,
  TAG_HEADER,
  type BindingName,
  type CallOptions,
  type EventStream,
  type Reply,
  type StreamEvent,
  type StreamOptions,
  type StreamingOperation,
  type UnaryOperation,
} from './a2a-driver.js';
import { CallRefusedError, type DriverConnection, type RefusalStatus } from './connection.js';
import { eventStreamOf } from './event-stream-of.js';
import { WireDriver } from './wire-driver.js';

const identity = (value: Buffer): Buffer => value;

/** The service parameters of a call as gRPC metadata, with the connection's credentials. */
export function serviceMetadata(
  options: StreamOptions,
  connection: DriverConnection = {},
): Metadata {
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(connection.headers ?? {})) metadata.set(name, value);
  const version = options.version === undefined ? '1.0' : options.version;
  // HTTP/2 field values carry no surrounding whitespace (RFC 9113 8.2.1): trimmed, as fetch
  // trims header values.
  if (version !== null) metadata.set('a2a-version', version.trim());
  if (options.extensions !== undefined)
    metadata.set('a2a-extensions', options.extensions.join(', '));
  if (options.tag !== undefined) metadata.set(TAG_HEADER, options.tag);
  if (options.lastEventId !== undefined) metadata.set('last-event-id', String(options.lastEventId));
  return metadata;
}

function extensionsOf(metadata: Metadata | undefined): readonly string[] {
  const value = metadata?.get('a2a-extensions')[0];
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '');
}

/** The gRPC codes of refusals made before the operation (authentication, limits). */
const REFUSALS: Readonly<Record<number, RefusalStatus>> = {
  [status.UNAUTHENTICATED]: 'UNAUTHENTICATED',
  [status.PERMISSION_DENIED]: 'PERMISSION_DENIED',
  [status.RESOURCE_EXHAUSTED]: 'RESOURCE_EXHAUSTED',
};

/** The refusal of a call the server refused before its operation, or `undefined`. */
function refusalOf(error: ServiceError): CallRefusedError | undefined {
  const refusal = REFUSALS[error.code];
  if (refusal === undefined) return undefined;
  const bytes = error.metadata?.get(STATUS_DETAILS_KEY)[0];
  if (bytes instanceof Buffer) {
    const decoded = decodeStatus(bytes);
    if (fromGrpcStatus(error.code, decoded.message, decoded.details) !== undefined)
      return undefined;
  }
  const retryAfter = error.metadata?.get('retry-after')[0];
  return new CallRefusedError(refusal, error.details, {
    retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
    raw: error.details,
  });
}

/**
 * The typed A2A error of a failed call, checked against spec 5.4.
 *
 * @throws CallRefusedError for a refusal before the operation (no A2A error in the status).
 */
export function decodeServiceError(error: ServiceError, operation: string): A2AError {
  const refused = refusalOf(error);
  if (refused !== undefined) throw refused;
  const bytes = error.metadata?.get(STATUS_DETAILS_KEY)[0];
  const where = `${operation} answered gRPC status ${error.code} ${JSON.stringify(error.details)}`;
  if (!(bytes instanceof Buffer)) {
    throw new BindingViolationError(`${where} without ${STATUS_DETAILS_KEY}`);
  }
  const status = decodeStatus(bytes);
  if (status.code !== (error.code as number) || status.message !== error.details) {
    throw new BindingViolationError(
      `${where}: its google.rpc.Status says ${status.code} ${status.message}`,
    );
  }
  const decoded = fromGrpcStatus(error.code, status.message, status.details);
  if (decoded === undefined) throw new BindingViolationError(`${where}: no A2A error`);
  if (grpcCodeOf(decoded) !== (error.code as number)) {
    throw new BindingViolationError(`${where}: a ${decoded.type} is ${decoded.grpcStatus}`);
  }
  return decoded;
}

export class GrpcDriver extends WireDriver {
  readonly binding: BindingName = 'grpc';
  readonly #client: Client;
  readonly #tenant: string | undefined;
  readonly #connection: DriverConnection;

  /**
   * @param connection credentials (sent as metadata) and client TLS (then the channel is TLS).
   * @param tenant the interface's tenant, sent with every request that names none.
   */
  constructor(url: string, connection: DriverConnection = {}, tenant?: string) {
    super(url);
    const tls = connection.tls;
    this.#client = new Client(
      url,
      tls === undefined
        ? credentials.createInsecure()
        : credentials.createSsl(
            tls.ca === undefined ? null : Buffer.from(tls.ca),
            tls.key === undefined ? null : Buffer.from(tls.key),
            tls.cert === undefined ? null : Buffer.from(tls.cert),
          ),
    );
    this.#tenant = tenant;
    this.#connection = connection;
  }

  /** The request as sent: with the interface's tenant unless it names one. */
  #withTenant(request: object): object {
    if (this.#tenant === undefined || 'tenant' in request) return request;
    return { ...request, tenant: this.#tenant };
  }

  call<N extends UnaryOperation>(
    operation: N,
    request: OperationRequest<N>,
    options: CallOptions = {},
  ): Promise<Reply<OperationResponse<N>>> {
    const method = grpcMethodOf(operation);
    return new Promise((resolve, reject) => {
      let headers: Metadata | undefined;
      const call = this.#client.makeUnaryRequest(
        method.path,
        identity,
        identity,
        Buffer.from(method.request.encode(this.#withTenant(request))),
        serviceMetadata(options, this.#connection),
        (error, response) => {
          options.signal?.removeEventListener('abort', cancel);
          const activatedExtensions = extensionsOf(headers);
          if (error !== null) {
            try {
              const decoded = decodeServiceError(error, operation);
              resolve({
                result: undefined,
                error: decoded,
                activatedExtensions,
                raw: `${error.details} ${JSON.stringify(decoded.details)}`,
              });
            } catch (violation) {
              reject(violation instanceof Error ? violation : new Error(String(violation)));
            }
            return;
          }
          const result = method.response.decode(response ?? Buffer.alloc(0));
          resolve({
            result: result as OperationResponse<N>,
            error: undefined,
            activatedExtensions,
            raw: JSON.stringify(result),
          });
        },
      );
      call.on('metadata', (metadata: Metadata) => {
        headers = metadata;
      });
      const cancel = (): void => call.cancel();
      options.signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  async open<N extends StreamingOperation>(
    operation: N,
    request: OperationRequest<N>,
    options: StreamOptions = {},
  ): Promise<EventStream> {
    const method = grpcMethodOf(operation);
    const call: ClientReadableStream<Buffer> = this.#client.makeServerStreamRequest(
      method.path,
      identity,
      identity,
      Buffer.from(method.request.encode(this.#withTenant(request))),
      serviceMetadata(options, this.#connection),
    );
    const cancel = (): void => call.cancel();
    options.signal?.addEventListener('abort', cancel, { once: true });
    const queue: { bytes: Buffer; receivedAt: number }[] = [];
    let failure: ServiceError | undefined;
    let ended = false;
    let closed = false;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    call.on('data', (bytes: Buffer) => {
      queue.push({ bytes, receivedAt: preciseNow() });
      notify();
    });
    call.on('error', (error: ServiceError) => {
      if (!closed) failure = error;
      ended = true;
      notify();
    });
    call.on('end', () => {
      ended = true;
      notify();
    });
    const headers = await new Promise<Metadata | undefined>((resolve, reject) => {
      call.once('metadata', resolve);
      call.once('end', () => resolve(undefined));
      call.once('error', (error: ServiceError) => {
        try {
          reject(decodeServiceError(error, operation));
        } catch (violation) {
          reject(violation instanceof Error ? violation : new Error(String(violation)));
        }
      });
    });
    const header = headers?.get(FIRST_EVENT_ID_HEADER)[0];
    const firstSeq = firstEventIdOf(typeof header === 'string' ? header : undefined);
    let position = 0;
    const next = async (): Promise<StreamEvent | undefined> => {
      for (;;) {
        const first = queue.shift();
        if (first !== undefined) {
          const value = method.response.decode(first.bytes);
          const raw = JSON.stringify(value);
          const seq = firstSeq === undefined ? undefined : firstSeq + position;
          position++;
          return {
            seq,
            response: value as StreamResponse,
            json: undefined,
            raw,
            receivedAt: first.receivedAt,
          };
        }
        if (closed) return undefined;
        if (failure !== undefined) throw decodeServiceError(failure, operation);
        if (ended) return undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    };
    return eventStreamOf({
      activatedExtensions: extensionsOf(headers),
      next,
      close: () => {
        closed = true;
        call.cancel();
        notify();
      },
    });
  }
}
