/**
 * The names of the A2A service parameters (spec 3.2.6) as the HTTP-based bindings carry them, in
 * request headers (spec 9.2, 14.2) and, for gRPC, in metadata: one definition for the server
 * that reads them and the client that sends them.
 */

export { VERSION_HEADER } from './version.js';

/** The header that lists requested (and, in responses, activated) extension URIs. */
export const EXTENSIONS_HEADER = 'A2A-Extensions';
