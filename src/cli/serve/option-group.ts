/**
 * The flags of `tandem serve` come in groups — security, gRPC, the configured agents, limits,
 * compatibility, push — each a {@link ServeOptionGroup}: its `parseArgs` options, its section of
 * the help, and how its values are read. The command spreads the options of every group into one
 * parser, prints every help section, and reads each group (`options.ts`): a new group is one file
 * and one line in that list.
 */

import type { ParseArgsConfig } from 'node:util';
import type { ServedAgentName } from './served-agent-name.js';

/** What the main flags decided, for the groups that depend on it. */
export interface ServeContext {
  /** The agents to serve (`--agent`), each once. */
  readonly agents: readonly ServedAgentName[];
  /** Whether gRPC is served (`--grpc-port`). */
  readonly grpc: boolean;
}

/** One group of flags. */
export interface ServeOptionGroup<Values, Parsed> {
  /** Its `parseArgs` options (declared `as const`, so that the values are typed by them). */
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** Its section of `tandem serve --help`. */
  readonly help: string;
  /**
   * Reads its values, with the environment variables that stand for them.
   *
   * @throws UsageFailure naming the flag that is wrong.
   */
  parse(values: Values, context: ServeContext): Parsed | Promise<Parsed>;
}
