/**
 * Reading the body of an HTTP+JSON request, for the bindings that share the rules: the media
 * type checked first, then the size (the declared `Content-Length`, then what arrives), and a
 * broken upload told apart from a body past the limit. Each binding words its own media-type
 * error, parses the text its own way and answers a refusal in its own error shape.
 */

import { InvalidRequestError, type A2AError } from '../../protocol/errors.js';
import { BODY_TOO_LARGE, type HttpRequest } from './http-exchange.js';
import type { Logger } from '../../runtime/logger.js';
import { formatBytes, mediaTypeOf } from './http-media.js';

/** Why a body was not read: its HTTP status, the A2A error to answer, and whether to close. */
export class BodyRefusal {
  constructor(
    readonly status: number,
    readonly error: A2AError,
    /** The body was not read to its end (or the upload broke): the connection cannot be reused. */
    readonly closeConnection = false,
  ) {}
}

/** What a binding accepts as a request body. */
export interface RequestBodyRules {
  readonly maxBodyBytes: number;
  readonly logger: Logger;
  /** The accepted media types (lower case, without parameters); no `Content-Type` is accepted. */
  readonly mediaTypes: ReadonlySet<string>;
  /** The error for any other `Content-Type`. */
  readonly unsupportedMediaType: (contentType: string) => A2AError;
}

/** The body of `request` as text (`''` when empty), or why it is refused. */
export async function readRequestText(
  request: HttpRequest,
  rules: RequestBodyRules,
): Promise<string | BodyRefusal> {
  const { maxBodyBytes, logger } = rules;
  const contentType = request.get('content-type');
  if (contentType && !rules.mediaTypes.has(mediaTypeOf(contentType))) {
    return new BodyRefusal(415, rules.unsupportedMediaType(contentType));
  }
  // Made only when refused: an error captures a stack trace, which costs every request.
  const tooLarge = (): BodyRefusal =>
    new BodyRefusal(
      413,
      new InvalidRequestError(`Request body exceeds the ${formatBytes(maxBodyBytes)} limit`),
      true,
    );
  const declared = request.get('content-length');
  if (declared && Number(declared) > maxBodyBytes) return tooLarge();
  let body: string | Uint8Array | typeof BODY_TOO_LARGE;
  try {
    body = await request.readBody(maxBodyBytes);
  } catch (error) {
    logger.debug({ err: error }, 'reading a request body failed');
    return new BodyRefusal(
      400,
      new InvalidRequestError('The request body could not be read'),
      true,
    );
  }
  if (body === BODY_TOO_LARGE) return tooLarge();
  return typeof body === 'string' ? body : new TextDecoder().decode(body);
}
