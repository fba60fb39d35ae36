/**
 * Prometheus text of the preset's metrics, for `GET /metrics`: on the server's own HTTP port (a
 * route the server mounts) or on a listener of its own that carries nothing else. It reads the
 * same MeterProvider as the OTLP export, under the names of the standard mapping
 * (`prometheus-names.ts`).
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { withUnitSuffixes } from './prometheus-names.js';

/** The media type of the Prometheus text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A reader of the MeterProvider that renders what it collects as Prometheus text. */
export class PrometheusEndpoint {
  /** The metric reader to give the MeterProvider. */
  readonly reader = new PrometheusExporter({ preventServerStart: true });
  readonly #serializer = new PrometheusSerializer();

  /** The exposition of every metric now. */
  async render(): Promise<string> {
    const { resourceMetrics, errors } = await this.reader.collect();
    if (errors.length > 0) {
      // A failing observable callback: the rest is still worth serving, and the error is the
      // SDK's to report (through its diag logger), as with an OTLP export.
      for (const error of errors) process.emitWarning(String(error), 'TelemetryWarning');
    }
    return this.#serializer.serialize(withUnitSuffixes(resourceMetrics));
  }
}

/** A listener of its own for `GET /metrics`: nothing else is served there. */
export interface MetricsListener {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on `port` (`host`, default all interfaces) and serves only `GET /metrics`. */
export async function listenForMetrics(
  endpoint: PrometheusEndpoint,
  port: number,
  host?: string,
): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Not found: this listener serves GET /metrics only\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      response.end('Method not allowed: use GET /metrics\n');
      return;
    }
    endpoint.render().then(
      (text) => {
        response.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`Collecting the metrics failed: ${String(error)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
