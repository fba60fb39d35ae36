/** Where agents serve their card, below their base URL. */

/** The path of the well-known card below an agent's base URL (spec 8.2, 14.3). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
