/**
 * The deliveries of one push config, one at a time and in order: it pages through the task's
 * log from the config's delivered position (a batch at a time, so memory stays bounded however
 * far behind it is), POSTs each event and records the outcome before going on. A retryable
 * failure waits its backoff; a permanent one gives that event up and goes on with the next.
 */

import { recordPushAttempt, recordPushPending } from '../telemetry/push-metrics.js';
import { DELIVERY_ID_HEADER, NOTIFICATION_TOKEN_HEADER } from '../protocol/push-headers.js';
import type { Logger } from '../runtime/logger.js';
import type { PushPayloadFormat } from '../runtime/push-notifications.js';
import type { PushDeliveryUpdate, StoredPushConfig, TaskPushStore } from '../stores/push-store.js';
import type { TaskStore } from '../stores/task-store.js';
import { planDeliveries, type PayloadOptions, type PlannedDelivery } from './push-payloads.js';
import { retryDelayMs, type RetryTiming } from './retry-timing.js';
import { postWebhookInSpan } from './delivery-span.js';
import type { WebhookClient, WebhookOutcome } from './webhook-post.js';

/** What every worker of a dispatcher shares. */
export interface WorkerContext {
  readonly store: TaskStore;
  readonly push: TaskPushStore;
  readonly holder: string;
  readonly client: WebhookClient;
  readonly timing: RetryTiming;
  readonly payloads: PayloadOptions;
  /** The payload formats of the versions other than 1.0 that configs may be created with. */
  readonly formats: ReadonlyMap<string, PushPayloadFormat>;
  readonly logger: Logger;
  /** Events read from the log per batch. */
  readonly batchSize: number;
  /** A backoff longer than this gives the config back (it is claimed again when due). */
  readonly parkAfterMs: number;
  /** The worker is done with its config: delivered all of a finished task, gone, or parked. */
  readonly onDone: (worker: ConfigWorker, release: boolean) => void;
  /** Aborted when the dispatcher closes: attempts in flight are abandoned (and retried later). */
  readonly stopped: AbortSignal;
}

/** The log positions of a delivery: `5`, or `5-7` for events delivered together. */
function rangeOf(delivery: PlannedDelivery): string {
  return delivery.fromSeq === delivery.toSeq
    ? String(delivery.toSeq)
    : `${delivery.fromSeq}-${delivery.toSeq}`;
}

/** Delivers one config's events. */
export class ConfigWorker {
  readonly taskId: string;
  readonly id: string;
  readonly #context: WorkerContext;
  #stored: StoredPushConfig;
  /** The format of a config created over another version than 1.0; `undefined` for 1.0. */
  readonly #format: PushPayloadFormat | undefined;
  /** The config's version has no format here: its events are skipped (and this was logged). */
  readonly #unrenderable: boolean;
  /** The highest seq this process knows the task's log has reached. */
  #knownSeq: number;
  #running = false;
  #again = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #idle: Promise<void> = Promise.resolve();

  constructor(context: WorkerContext, stored: StoredPushConfig) {
    this.#context = context;
    this.#stored = stored;
    this.taskId = stored.config.taskId;
    this.id = stored.config.id;
    this.#knownSeq = stored.taskSeq;
    const version = stored.config.protocolVersion;
    this.#format = version === undefined ? undefined : context.formats.get(version);
    this.#unrenderable = version !== undefined && this.#format === undefined;
    if (this.#unrenderable) {
      // Another replica, configured with the compat layer, created it; this one cannot render it.
      context.logger.error(
        { taskId: this.taskId, configId: this.id, protocolVersion: version },
        'push config of a protocol version this server has no payload format for; its events are skipped (give createPushNotifier the compat layer)',
      );
    }
  }

  /** The task has new events (up to `seq`, when known): deliver them. */
  wake(seq?: number): void {
    if (this.#closed) return;
    if (seq !== undefined && seq > this.#knownSeq) this.#knownSeq = seq;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#timer !== undefined) return;
    this.#running = true;
    this.#idle = this.#run().finally(() => (this.#running = false));
  }

  /** Caught up and waiting for new events: nothing in flight, no retry scheduled. */
  get idle(): boolean {
    return !this.#running && this.#timer === undefined && !this.#closed;
  }

  /** Stops after the attempt in flight; resolves once it has ended. */
  close(): Promise<void> {
    this.#closed = true;
    recordPushPending(this, 0);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#idle;
  }

  async #run(): Promise<void> {
    try {
      do {
        this.#again = false;
        await this.#drain();
      } while (this.#again && !this.#closed && this.#timer === undefined);
    } catch (error) {
      // A store failure: give the config back, to be claimed again at the next scan.
      this.#context.logger.error(
        { err: error, taskId: this.taskId, configId: this.id },
        'push delivery failed to read or record its state; retrying at the next scan',
      );
      this.#finish(true);
    }
  }

  async #drain(): Promise<void> {
    const { store, batchSize } = this.#context;
    while (!this.#closed) {
      const { state } = this.#stored;
      const wait = state.nextAttemptAt - Date.now();
      if (wait > 0) {
        this.#waitFor(wait);
        return;
      }
      const known = Math.max(this.#knownSeq, this.#stored.taskSeq);
      recordPushPending(this, known - state.deliveredSeq);
      if (state.deliveredSeq >= known) {
        if (this.#stored.taskTerminal) this.#finish(true);
        return;
      }
      const entries = await store.readEvents(this.taskId, state.deliveredSeq, batchSize);
      if (entries === undefined || entries.length === 0) {
        // The log is gone (task purged or compacted): nothing more can be delivered.
        if (entries === undefined) this.#finish(true);
        else this.#knownSeq = state.deliveredSeq;
        return;
      }
      const last = entries[entries.length - 1];
      if (last !== undefined && last.seq > this.#knownSeq) this.#knownSeq = last.seq;
      const planned = this.#unrenderable
        ? [{ fromSeq: entries[0]?.seq ?? 0, toSeq: last?.seq ?? 0, json: undefined }]
        : planDeliveries(entries, this.#context.payloads, this.#format);
      for (const delivery of planned) {
        if (this.#closed) return;
        // Stopped by a retry's backoff (waited for at the top of the loop) or the end.
        if (!(await this.#deliver(delivery))) break;
      }
    }
  }

  /** Makes one delivery; resolves whether to go on with the next. */
  async #deliver(delivery: PlannedDelivery): Promise<boolean> {
    const { state } = this.#stored;
    if (delivery.json === undefined) {
      return this.#record({ ...this.#cleared(), deliveredSeq: delivery.toSeq });
    }
    const outcome = await postWebhookInSpan(
      this.#context.client,
      this.#request(delivery, delivery.json),
      this.#context.stopped,
      {
        taskId: this.taskId,
        configId: this.id,
        events: rangeOf(delivery),
        taskTraceContext: this.#stored.taskTraceContext,
      },
    );
    if (this.#closed) return false;
    recordPushAttempt(this, delivery.toSeq, outcome, state, this.#context.timing.failingAfter);
    const now = Date.now();
    if (outcome.kind === 'delivered') {
      if (state.failing) {
        this.#context.logger.info(
          { taskId: this.taskId, configId: this.id },
          'push webhook recovered; no longer failing',
        );
      }
      return this.#record({
        deliveredSeq: delivery.toSeq,
        failures: 0,
        failing: false,
        nextAttemptAt: 0,
        lastSuccessAt: now,
      });
    }
    const failures = state.failures + 1;
    const failing = failures >= this.#context.timing.failingAfter;
    this.#logFailure(outcome, failures, failing, !state.failing && failing);
    const lastError = outcome.reason;
    if (outcome.kind === 'permanent') {
      // This event is given up; the next ones are still tried.
      return this.#record({
        deliveredSeq: delivery.toSeq,
        failures,
        failing,
        nextAttemptAt: failing ? now + this.#context.timing.probeMs : 0,
        lastError,
        lastErrorAt: now,
      });
    }
    const delay = retryDelayMs(this.#context.timing, failures, outcome.retryAfterMs);
    await this.#record({
      deliveredSeq: state.deliveredSeq,
      failures,
      failing,
      nextAttemptAt: now + delay,
      lastError,
      lastErrorAt: now,
    });
    return false;
  }

  #cleared(): PushDeliveryUpdate {
    const { state } = this.#stored;
    return {
      deliveredSeq: state.deliveredSeq,
      failures: state.failures,
      failing: state.failing,
      nextAttemptAt: state.nextAttemptAt,
      ...(state.lastError === undefined ? {} : { lastError: state.lastError }),
    };
  }

  #request(delivery: PlannedDelivery, body: string) {
    const { config } = this.#stored;
    const range = rangeOf(delivery);
    const credentialHeaders: Record<string, string> = {};
    if (config.token !== undefined) credentialHeaders[NOTIFICATION_TOKEN_HEADER] = config.token;
    const auth = config.authentication;
    if (auth !== undefined) {
      credentialHeaders.authorization =
        auth.credentials === undefined ? auth.scheme : `${auth.scheme} ${auth.credentials}`;
    }
    return {
      url: config.url,
      body,
      headers: {
        'content-type': this.#format?.contentType ?? 'application/a2a+json',
        'user-agent': 'tandem-push',
        [DELIVERY_ID_HEADER]: `${this.taskId}:${this.id}:${range}`,
      },
      credentialHeaders,
    };
  }

  /** Records an outcome; false when the config is gone or no longer ours (stop). */
  async #record(update: PushDeliveryUpdate): Promise<boolean> {
    const { push, holder } = this.#context;
    const stored = await push.recordDelivery(holder, this.taskId, this.id, update);
    if (stored === undefined) {
      this.#finish(false);
      return false;
    }
    this.#stored = stored;
    return true;
  }

  #waitFor(ms: number): void {
    if (ms > this.#context.parkAfterMs) {
      this.#finish(true);
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.wake();
    }, ms);
    this.#timer.unref();
  }

  #finish(release: boolean): void {
    if (this.#closed) return;
    this.#closed = true;
    recordPushPending(this, 0);
    this.#context.onDone(this, release);
  }

  #logFailure(
    outcome: WebhookOutcome,
    failures: number,
    failing: boolean,
    nowFailing: boolean,
  ): void {
    if (outcome.kind === 'delivered') return;
    const context = {
      taskId: this.taskId,
      configId: this.id,
      // The origin only: a URL's path and query may carry secrets.
      destination: safeOrigin(this.#stored.config.url),
      reason: outcome.reason,
      failures,
      permanent: outcome.kind === 'permanent',
    };
    if (nowFailing) {
      this.#context.logger.warn(
        context,
        'push webhook marked failing; further attempts slow to a probe',
      );
    } else if (outcome.kind === 'permanent') {
      // The event is given up, never delivered: the operator should hear of it.
      this.#context.logger.warn(context, 'push delivery failed permanently; the event is given up');
    } else {
      this.#context.logger[failing ? 'debug' : 'info'](context, 'push delivery attempt failed');
    }
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}
