/**
 * Writes `text/event-stream` frames. The server streams every A2A streaming response through
 * these two functions, so they stay cheap in the common case: a single-line payload (which every
 * `JSON.stringify` result is) costs one string concatenation and no allocation besides it.
 *
 * Frames follow the WHATWG HTML event stream format
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html), read back by `SseDecoder`.
 */

const LF = 0x0a;

/**
 * One event to send. The fields mirror the event stream fields of the same names; only `data`
 * is required, because an event with no `data:` line is never dispatched by a spec client.
 */
export interface SseEventInit {
  /**
   * The payload. Line breaks (CRLF, LF or CR) split it into several `data:` lines, which a
   * client joins back with LF: CR and CRLF do not survive the round trip, LF does.
   */
  data: string;
  /**
   * Sets the client's last event ID, which it sends back as `Last-Event-ID` when it
   * reconnects. An empty string resets it. Must not contain CR, LF or NUL.
   */
  id?: string;
  /** The event type; a client treats an absent or empty type as `message`. No CR or LF. */
  event?: string;
  /** The client's reconnection delay in milliseconds: a non-negative safe integer. */
  retry?: number;
}

/**
 * Encodes one event as `id:`, `event:`, `retry:` and `data:` lines (in that order, each field
 * that is set) followed by the blank line that makes the client dispatch it. Values are written
 * after `": "` so that a value starting with a space keeps it when decoded.
 *
 * @throws TypeError when `id` contains CR, LF or NUL, `event` contains CR or LF, or `retry` is
 *   not a non-negative safe integer: such a frame would be split or silently ignored by the
 *   client, so it is refused here instead of corrupting the stream.
 */
export function encodeSseEvent(event: SseEventInit): string {
  let frame = '';
  const { id, event: type, retry } = event;
  if (id !== undefined) {
    if (id.includes('\n') || id.includes('\r') || id.includes('\0')) {
      throw new TypeError(
        `SSE event id ${JSON.stringify(id)} contains CR, LF or NUL, which clients reject or ` +
          'split; use an id without line breaks or NUL characters',
      );
    }
    frame += 'id: ' + id + '\n';
  }
  if (type !== undefined) {
    if (type.includes('\n') || type.includes('\r')) {
      throw new TypeError(
        `SSE event type ${JSON.stringify(type)} contains CR or LF, which would split the ` +
          'field; use an event type without line breaks',
      );
    }
    frame += 'event: ' + type + '\n';
  }
  if (retry !== undefined) {
    if (!Number.isSafeInteger(retry) || retry < 0) {
      throw new TypeError(
        `SSE retry ${String(retry)} is not a non-negative integer number of milliseconds; ` +
          'clients ignore anything but ASCII digits',
      );
    }
    frame += 'retry: ' + String(retry) + '\n';
  }
  return frame + prefixLines('data: ', event.data) + '\n';
}

/**
 * Encodes a comment block, which clients skip: servers send it as a heartbeat so that proxies
 * and load balancers do not close an idle stream. Each line of `text` becomes one `: ` line;
 * with no text (or an empty one) the block is the minimal `:\n\n`. The trailing blank line
 * dispatches nothing on its own, so a comment may sit between any two events.
 */
export function encodeSseComment(text?: string): string {
  if (text === undefined || text.length === 0) return ':\n\n';
  return prefixLines(': ', text) + '\n';
}

/**
 * Writes each line of `text` as `prefix + line + "\n"`, splitting on CRLF, LF and CR exactly
 * where a decoder would. The no-line-break case returns before any scanning loop.
 */
function prefixLines(prefix: string, text: string): string {
  let lf = text.indexOf('\n');
  let cr = text.indexOf('\r');
  if (lf === -1 && cr === -1) return prefix + text + '\n';
  let out = '';
  let start = 0;
  for (;;) {
    if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
    if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
    const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
    if (end === -1) return out + prefix + text.slice(start) + '\n';
    out += prefix + text.slice(start, end) + '\n';
    start = end === cr && text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
  }
}
