/**
 * The demo agents by the name `tandem serve --agent NAME` knows them. Each is written only against
 * the public API (`tandem`, `tandem/server`), like an agent of a user, and lives in its own module,
 * imported only when served: a server started with `--agent echo` never builds the translator's
 * dictionary.
 */

import type { AgentDefinition } from '../server.js';

/** The demo agents, in the order `tandem serve --help` lists them. */
export const demoAgentNames = ['dice', 'translator', 'echo', 'conformance'] as const;

/** The name of a demo agent. */
export type DemoAgentName = (typeof demoAgentNames)[number];

/** Tells whether `name` is the name of a demo agent. */
export function isDemoAgentName(name: string): name is DemoAgentName {
  return (demoAgentNames as readonly string[]).includes(name);
}

/** Loads the demo agent called `name`. */
export async function loadDemoAgent(name: DemoAgentName): Promise<AgentDefinition> {
  switch (name) {
    case 'dice':
      return (await import('./dice.js')).dice;
    case 'translator':
      return (await import('./translator.js')).translator;
    case 'echo':
      return (await import('./echo.js')).echo;
    case 'conformance':
      return (await import('./conformance.js')).conformance;
  }
}
