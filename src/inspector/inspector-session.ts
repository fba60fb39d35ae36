/**
 * What one run of the inspector holds: the connections the page opened (the latest one is the
 * page's after a reload), the wire log and the push receiver's deliveries. All of it lives in
 * memory and ends with the process; nothing, credentials least of all, is written to disk.
 */

import type { FetchFunction } from '../client.js';
import { openConnection, type AgentConnection } from './agent-connection.js';
import type { ConnectRequest, FailureView } from './inspector-api.js';
import { UnknownConnectionError } from './inspector-errors.js';
import { PushCapture } from './push-capture.js';
import { WireLog } from './wire-log.js';

/** Connections kept; a page uses the latest, older ones serve pages not yet reloaded. */
const CONNECTIONS_KEPT = 8;

/** Options of {@link InspectorSession}. */
export interface InspectorSessionOptions {
  /** The URL of the push receiver, as agents reach it. */
  readonly receiverUrl: () => string;
  readonly describe: (error: unknown) => FailureView;
  readonly fetch?: FetchFunction;
}

export class InspectorSession {
  readonly log = new WireLog();
  readonly push = new PushCapture();
  readonly #connections = new Map<string, AgentConnection>();
  readonly #options: InspectorSessionOptions;
  #current: AgentConnection | undefined;

  constructor(options: InspectorSessionOptions) {
    this.#options = options;
  }

  /** Opens a connection and makes it the current one. */
  async connect(request: ConnectRequest): Promise<AgentConnection> {
    const connection = await openConnection(request, {
      log: this.log,
      receiverUrl: this.#options.receiverUrl(),
      describe: this.#options.describe,
      ...(this.#options.fetch === undefined ? {} : { fetch: this.#options.fetch }),
    });
    this.#connections.set(connection.id, connection);
    if (this.#connections.size > CONNECTIONS_KEPT) {
      const oldest = this.#connections.keys().next().value;
      if (oldest !== undefined) this.#connections.delete(oldest);
    }
    this.#current = connection;
    return connection;
  }

  /**
   * The connection `id`.
   *
   * @throws UnknownConnectionError when this run holds none by that id.
   */
  connection(id: string): AgentConnection {
    const connection = this.#connections.get(id);
    if (connection === undefined) {
      throw new UnknownConnectionError(
        'This connection is gone (the inspector restarted, or it was replaced): connect again',
      );
    }
    return connection;
  }

  /** The connection opened last, if any. */
  current(): AgentConnection | undefined {
    return this.#current;
  }
}
