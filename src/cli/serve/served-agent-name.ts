/** The agents `tandem serve --agent` knows: the demo agents, then the configured ones. */

import { demoAgentNames, type DemoAgentName } from '../../agents/index.js';

/** Every agent `tandem serve --agent` knows: the demo agents, then the configured ones. */
export const servedAgentNames = [...demoAgentNames, 'chat', 'orchestrator'] as const;

/** The name of an agent `tandem serve` can serve. */
export type ServedAgentName = DemoAgentName | 'chat' | 'orchestrator';

/** Tells whether `name` is an agent `tandem serve` can serve. */
export function isServedAgentName(name: string): name is ServedAgentName {
  return (servedAgentNames as readonly string[]).includes(name);
}
