/**
 * The demo agents by the name `tandem serve --agent NAME` knows them. Each is written only against
 * the public API (`tandem`, `tandem/server`), like an agent of a user.
 */

import type { AgentDefinition } from '../server.js';
import { conformance } from './conformance.js';
import { dice } from './dice.js';
import { echo } from './echo.js';
import { translator } from './translator.js';

/** Every demo agent, in the order `tandem serve --help` lists them. */
export const demoAgents: Record<'dice' | 'translator' | 'echo' | 'conformance', AgentDefinition> =
  Object.freeze({ dice, translator, echo, conformance });
