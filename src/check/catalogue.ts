/**
 * The catalogue of checks: every check's stable id, what it verifies, the level and section of
 * the requirement, and where it runs. Data only, so that a user interface can list and group the
 * checks without running any; each check's code (`areas/`) is found by its id, and a test holds
 * the two together. One file per area under `catalogue/`.
 *
 * Ids never change once published: `--only`, `--skip`, JUnit reports and CI baselines name them.
 */

import type { CheckArea, CheckDefinition } from './check-types.js';
import { BINDING_DEFINITIONS } from './catalogue/binding-definitions.js';
import { CARD_DEFINITIONS } from './catalogue/card-definitions.js';
import { ERROR_DEFINITIONS } from './catalogue/error-definitions.js';
import { MESSAGE_DEFINITIONS } from './catalogue/message-definitions.js';
import { PUSH_DEFINITIONS } from './catalogue/push-definitions.js';
import { STREAM_DEFINITIONS } from './catalogue/stream-definitions.js';
import { VERSION_DEFINITIONS } from './catalogue/version-definitions.js';

/** The areas, in the order they run and are reported, with their headings. */
export const CHECK_AREAS: readonly { readonly area: CheckArea; readonly title: string }[] = [
  { area: 'card', title: 'Discovery and card' },
  { area: 'version', title: 'Version negotiation' },
  { area: 'messages', title: 'Messages and tasks' },
  { area: 'streaming', title: 'Streaming' },
  { area: 'push', title: 'Push notifications' },
  { area: 'binding', title: 'Binding rules' },
  { area: 'errors', title: 'Errors' },
];

/** Every check, in the order of the report. */
export const CHECKS: readonly CheckDefinition[] = [
  ...CARD_DEFINITIONS,
  ...VERSION_DEFINITIONS,
  ...MESSAGE_DEFINITIONS,
  ...STREAM_DEFINITIONS,
  ...PUSH_DEFINITIONS,
  ...BINDING_DEFINITIONS,
  ...ERROR_DEFINITIONS,
];

/** The definition of a check by id. */
export function checkDefinition(id: string): CheckDefinition | undefined {
  return CHECKS.find((check) => check.id === id);
}
