/**
 * What the client's card resolver loads, only when it meets an A2A 0.3 card: the card translation,
 * its reading by 0.3's rules, and the error they throw (one module, so that one dynamic import
 * brings them all).
 */

export { cardFromV03 } from './v03-card.js';
export { readV03Card } from './v03-card-reading.js';
export { UntranslatableError } from './untranslatable.js';
