/**
 * A 0.3 card read as a 1.0 `AgentCard` the way 0.3 judged it: translated (`cardFromV03`), then
 * validated as 1.0, except for the 1.0 rules that 0.3 did not have. The 0.3 schema requires
 * `skills`, each skill's `tags`, and the default modes, but lets them be empty, and its strings
 * may be empty; 1.0 requires a REQUIRED list to hold an element and a REQUIRED string to have
 * text (spec 5.7). Agents built on 0.3 libraries publish such cards (an agent with no skills
 * yet), and a 0.3 agent is judged by 0.3: the card is accepted, with a warning for each 1.0 rule
 * it does not hold, so that a 1.0 reader knows what it cannot rely on. Interfaces and security
 * are never relaxed: a card that cannot be called, or not securely, is refused as before.
 *
 * A card with `url` and no `supportedInterfaces` but no `protocolVersion` is a 0.3 card too
 * (0.2 and early 0.3 servers publish them); its missing version is one more warning.
 */

import type { FieldViolation } from '../../../protocol/error-details.js';
import type { AgentCard, AgentSkill } from '../../../protocol/generated/types.js';
import { parseMessage } from '../../../protocol/validation.js';
import { isObject } from './untranslatable.js';
import { cardFromV03 } from './v03-card.js';

/** What reading a 0.3 card found. */
export type V03CardReading =
  | { readonly success: true; readonly card: AgentCard; readonly warnings: readonly string[] }
  | { readonly success: false; readonly violations: readonly FieldViolation[] };

const PLACEHOLDER = 'tandem-0.3-placeholder';
const PLACEHOLDER_SKILL = {
  id: PLACEHOLDER,
  name: PLACEHOLDER,
  description: PLACEHOLDER,
  tags: [PLACEHOLDER],
};

const EMPTY_LIST = 'is empty: A2A 0.3 allows that, A2A 1.0 requires at least one element';
const EMPTY_TEXT = 'is empty: A2A 0.3 allows that, A2A 1.0 requires a value';

/** One relaxed field: where it is, and how to put the empty value back into the parsed card. */
interface Relaxed {
  readonly warning: string;
  readonly restore: (card: AgentCard) => void;
}

/** The top-level lists and strings 0.3 lets be empty, each restored after validation. */
function relaxTopLevel(card: Record<string, unknown>, relaxed: Relaxed[]): void {
  if (Array.isArray(card.skills) && card.skills.length === 0) {
    card.skills = [PLACEHOLDER_SKILL];
    relaxed.push({
      warning: `skills ${EMPTY_LIST} (the card lists no skills)`,
      restore: (c) => {
        c.skills = [];
      },
    });
  }
  for (const field of ['defaultInputModes', 'defaultOutputModes'] as const) {
    const value = card[field];
    if (Array.isArray(value) && value.length === 0) {
      card[field] = [PLACEHOLDER];
      relaxed.push({
        warning: `${field} ${EMPTY_LIST}`,
        restore: (c) => {
          c[field] = [];
        },
      });
    }
  }
  for (const field of ['name', 'description', 'version'] as const) {
    if (card[field] === '') {
      card[field] = PLACEHOLDER;
      relaxed.push({
        warning: `${field} ${EMPTY_TEXT}`,
        restore: (c) => {
          c[field] = '';
        },
      });
    }
  }
}

/** A skill's empty tags and strings, each restored after validation. */
function relaxSkills(card: Record<string, unknown>, relaxed: Relaxed[]): void {
  if (!Array.isArray(card.skills)) return;
  card.skills = card.skills.map((skill: unknown, index) => {
    if (!isObject(skill)) return skill;
    const copy: Record<string, unknown> = { ...skill };
    const at = (c: AgentCard): AgentSkill | undefined => c.skills[index];
    if (Array.isArray(copy.tags) && copy.tags.length === 0) {
      copy.tags = [PLACEHOLDER];
      relaxed.push({
        warning: `skills[${index}].tags ${EMPTY_LIST}`,
        restore: (c) => {
          const restored = at(c);
          if (restored !== undefined) restored.tags = [];
        },
      });
    }
    for (const field of ['id', 'name', 'description'] as const) {
      if (copy[field] !== '') continue;
      copy[field] = PLACEHOLDER;
      relaxed.push({
        warning: `skills[${index}].${field} ${EMPTY_TEXT}`,
        restore: (c) => {
          const restored = at(c);
          if (restored !== undefined) restored[field] = '';
        },
      });
    }
    return copy;
  });
}

/**
 * Reads a 0.3 card (JSON) as a 1.0 card, tolerating what 0.3 allowed.
 *
 * @throws UntranslatableError when the card cannot be translated at all.
 */
export function readV03Card(json: Record<string, unknown>): V03CardReading {
  const translated = cardFromV03(json);
  const relaxed: Relaxed[] = [];
  if (json.protocolVersion === undefined) {
    relaxed.push({
      warning:
        'protocolVersion is missing (A2A 0.3 requires it); read as an A2A 0.3 card, since it has url and no supportedInterfaces',
      restore: () => undefined,
    });
  }
  relaxSkills(translated, relaxed);
  relaxTopLevel(translated, relaxed);
  const parsed = parseMessage('AgentCard', translated);
  if (!parsed.success) return { success: false, violations: parsed.violations };
  const card = parsed.value;
  for (const field of relaxed) field.restore(card);
  return { success: true, card, warnings: relaxed.map((field) => field.warning) };
}
