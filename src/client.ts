/**
 * `tandem/client`: calling A2A agents. The client lands with its own issue; this entry point
 * exists so that the package layout is stable.
 */

export { CURRENT_PROTOCOL_VERSION } from './protocol/version.js';
