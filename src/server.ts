/**
 * `tandem/server`: serving agents over A2A. The runtime lands with its own issue; this entry
 * point exists so that the package layout is stable.
 */

export { CURRENT_PROTOCOL_VERSION } from './protocol/version.js';
