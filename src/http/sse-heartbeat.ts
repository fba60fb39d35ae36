/**
 * Heartbeats on idle event streams: a comment frame at an interval keeps proxies and load
 * balancers (whose idle timeouts are commonly 30-60 s) from closing a stream that waits for its
 * next event. Shared by the fetch and node bridges.
 */

/** The comment frame sent on an idle stream so that proxies keep it open. */
export const SSE_HEARTBEAT = ':\n\n';

/**
 * Sends {@link SSE_HEARTBEAT} through `send` every `intervalMs` while a stream is idle. Marking
 * activity costs one field write per event (no timer reset on the hot path), so the first
 * heartbeat after an event comes between one and two intervals later; each further one follows
 * one interval after the previous. `intervalMs <= 0` disables heartbeats.
 */
export class SseHeartbeat {
  #active = false;
  readonly #timer: ReturnType<typeof setInterval> | undefined;

  constructor(intervalMs: number, send: () => void) {
    if (intervalMs <= 0) return;
    this.#timer = setInterval(() => {
      if (this.#active) this.#active = false;
      else send();
    }, intervalMs);
    // A heartbeat must not keep a process alive on its own.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Records that a frame was just written. */
  touch(): void {
    this.#active = true;
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }
}
