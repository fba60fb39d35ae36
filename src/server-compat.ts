/**
 * `tandem/server/compat`: serve clients of an older A2A version beside 1.0 ones, an entry point of
 * its own so that `tandem/server` never loads the 0.3 translators. Pass it as the `compat` option:
 *
 * ```ts
 * import { compatV03 } from 'tandem/server/compat';
 * createNodeServer({ agents, compat: compatV03() });
 * ```
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */

export { LEGACY_CARD_PATH, compatV03 } from './bindings/v0_3/compat-v03.js';
