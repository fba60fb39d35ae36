/**
 * What the client's card resolver loads, only when it meets an A2A 0.3 card: the card translation
 * and the error it throws (one module, so that one dynamic import brings both).
 */

export { cardFromV03 } from './v03-card.js';
export { UntranslatableError } from './untranslatable.js';
