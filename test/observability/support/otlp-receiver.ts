/**
 * A local OTLP/HTTP receiver, as a collector would listen for it: `POST /v1/traces` and
 * `POST /v1/metrics` in protobuf (`application/x-protobuf`) or JSON (`application/json`), each
 * decoded into one shape (OTLP/JSON), with the content type and headers it came with. Tests
 * wait for what they expect to arrive with `waitFor`, never with a sleep.
 */

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ExportMetricsServiceRequest,
  ExportTraceServiceRequest,
  toOtlpJson,
} from './otlp-proto.js';

/** One attribute as OTLP carries it. */
export interface OtlpKeyValue {
  readonly key: string;
  readonly value: {
    readonly stringValue?: string;
    readonly intValue?: string | number;
    readonly boolValue?: boolean;
    readonly doubleValue?: number;
    readonly arrayValue?: { readonly values?: readonly OtlpKeyValue['value'][] };
  };
}

/** A span as received. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes?: readonly OtlpKeyValue[];
  readonly status?: { readonly code?: number; readonly message?: string };
  readonly links?: readonly { readonly traceId: string; readonly spanId: string }[];
}

/** A metric as received, with the resource it came from. */
export interface ReceivedMetric {
  readonly name: string;
  readonly unit?: string;
  readonly histogram?: {
    readonly dataPoints?: readonly {
      readonly explicitBounds?: readonly number[];
      readonly attributes?: readonly OtlpKeyValue[];
      readonly count?: string | number;
    }[];
  };
  readonly sum?: {
    readonly dataPoints?: readonly { readonly attributes?: readonly OtlpKeyValue[] }[];
    readonly isMonotonic?: boolean;
  };
  readonly gauge?: {
    readonly dataPoints?: readonly { readonly attributes?: readonly OtlpKeyValue[] }[];
  };
}

/** One export request. */
export interface ReceivedExport {
  readonly signal: 'traces' | 'metrics';
  readonly contentType: string;
  readonly headers: IncomingMessage['headers'];
  readonly resourceAttributes: readonly OtlpKeyValue[];
  readonly spans: readonly ReceivedSpan[];
  readonly metrics: readonly ReceivedMetric[];
}

interface ResourceBlock {
  resource?: { attributes?: OtlpKeyValue[] };
  scopeSpans?: { spans?: ReceivedSpan[] }[];
  scopeMetrics?: { metrics?: ReceivedMetric[] }[];
}

function flatten(
  signal: 'traces' | 'metrics',
  body: unknown,
  contentType: string,
  headers: IncomingMessage['headers'],
): ReceivedExport[] {
  const blocks =
    (body as Record<string, ResourceBlock[] | undefined>)[
      signal === 'traces' ? 'resourceSpans' : 'resourceMetrics'
    ] ?? [];
  return blocks.map((block) => ({
    signal,
    contentType,
    headers,
    resourceAttributes: block.resource?.attributes ?? [],
    spans: (block.scopeSpans ?? []).flatMap((scope) => scope.spans ?? []),
    metrics: (block.scopeMetrics ?? []).flatMap((scope) => scope.metrics ?? []),
  }));
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The value of a string, int or bool attribute, by key. */
export function attributeOf(
  attributes: readonly OtlpKeyValue[] | undefined,
  key: string,
): string | number | boolean | undefined {
  const value = attributes?.find((attribute) => attribute.key === key)?.value;
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  return value.doubleValue;
}

export class OtlpReceiver {
  readonly exports: ReceivedExport[] = [];
  readonly #server: Server;
  readonly #waiters = new Set<() => void>();

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on a free loopback port. */
  static async start(): Promise<OtlpReceiver> {
    const server: Server = createServer((request, response) => {
      receiver.handle(request).then(
        () => {
          response.writeHead(200, {
            'content-type': request.headers['content-type'] ?? 'application/json',
          });
          response.end();
        },
        (error: unknown) => {
          response.writeHead(400, { 'content-type': 'text/plain' });
          response.end(String(error));
        },
      );
    });
    const receiver = new OtlpReceiver(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return receiver;
  }

  /** The endpoint to give an exporter: `http://127.0.0.1:<port>`. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Every span received so far. */
  get spans(): ReceivedSpan[] {
    return this.exports.flatMap((received) => received.spans);
  }

  /** Every metric received so far. */
  get metrics(): ReceivedMetric[] {
    return this.exports.flatMap((received) => received.metrics);
  }

  async handle(request: IncomingMessage): Promise<void> {
    const path = request.url ?? '';
    const signal =
      path === '/v1/traces' ? 'traces' : path === '/v1/metrics' ? 'metrics' : undefined;
    if (request.method !== 'POST' || signal === undefined)
      throw new Error(`Unexpected ${request.method} ${path}`);
    const contentType = request.headers['content-type'] ?? '';
    const bytes = await readBody(request);
    let body: unknown;
    if (contentType.startsWith('application/x-protobuf')) {
      body = toOtlpJson(
        signal === 'traces' ? ExportTraceServiceRequest : ExportMetricsServiceRequest,
        bytes,
      );
    } else if (contentType.startsWith('application/json')) {
      body = JSON.parse(bytes.toString('utf8'));
    } else {
      throw new Error(`Unexpected content type ${contentType}`);
    }
    this.exports.push(...flatten(signal, body, contentType, request.headers));
    for (const wake of this.#waiters) wake();
  }

  /** Resolves once `check` holds of what arrived (checked at each arrival). */
  async waitFor<T>(
    check: (receiver: OtlpReceiver) => T | undefined | false,
    timeoutMs = 15_000,
  ): Promise<T> {
    const first = check(this);
    if (first !== undefined && first !== false) return first;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        reject(new Error(`The OTLP receiver did not get what was awaited within ${timeoutMs} ms`));
      }, timeoutMs);
      const wake = (): void => {
        const result = check(this);
        if (result === undefined || result === false) return;
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve(result);
      };
      this.#waiters.add(wake);
    });
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
