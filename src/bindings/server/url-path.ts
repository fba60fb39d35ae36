/**
 * The one check of every path a server is configured with (an agent's mount path, a binding's
 * path below it), so that each mistake is refused with the same wording, naming the option.
 */

import { ConfigurationError } from '../../protocol/local-errors.js';

const PATH_PATTERN = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*$/;

/**
 * `value` as a path: `''` for the root (`'/'` too), else `/x/y` without a trailing slash.
 *
 * @param option the option's name as the caller wrote it (`agents[0].path`).
 * @throws ConfigurationError naming `option` for anything that is not a URL path.
 */
export function normalizeUrlPath(option: string, value: string): string {
  const path = value === '/' ? '' : value.endsWith('/') ? value.slice(0, -1) : value;
  if (!PATH_PATTERN.test(path)) {
    throw new ConfigurationError(
      `${option} ${JSON.stringify(value)} is not a URL path; use '' for the root or a path ` +
        `like '/agents/dice' (no query, no empty segments)`,
    );
  }
  return path;
}
