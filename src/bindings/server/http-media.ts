/** Small HTTP rules the HTTP bindings share: media types, the event-stream headers, byte sizes. */

/** The media type of a `Content-Type` or `Accept` entry, lower-case, without parameters. */
export function mediaTypeOf(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** The headers of an event-stream response. */
export function sseHeaders(): Record<string, string> {
  return {
    'content-type': 'text/event-stream',
    // no-transform keeps compression middleware and proxies from buffering the stream.
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  };
}

/** `4 MiB`, `512 KiB`, `100 bytes`: for messages about the body limit. */
export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The media type of A2A JSON bodies (spec 14.1). */
export const A2A_JSON_MEDIA_TYPE = 'application/a2a+json';

/** `application/a2a+json` if the request's `Accept` names it, else `application/json`. */
export function jsonMediaTypeFor(accept: string | null | undefined): string {
  if (accept === null || accept === undefined) return 'application/json';
  return accept.split(',').some((entry) => mediaTypeOf(entry) === A2A_JSON_MEDIA_TYPE)
    ? A2A_JSON_MEDIA_TYPE
    : 'application/json';
}
