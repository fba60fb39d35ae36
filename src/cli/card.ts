/**
 * `tandem card <url>`: fetches the agent card the way the client does (so `--token`, `--header`
 * and `--binding` apply), pretty-prints it and marks the interface the client would use. A card
 * that is not valid A2A 1.0 is shown as received with its problems, and the command exits 1.
 */

import { AgentCardError, NoCompatibleInterfaceError, type FetchFunction } from '../client.js';
import { parseMessage } from '../index.js';
import { ExitCode } from './exit-code.js';
import { failureOf } from './errors-to-exit.js';
import { writeCard, writeInvalidCard } from './render-card.js';
import { runCommand } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';

const HELP = `Usage: tandem card <url> [options]

Fetches the agent card of <url> (from /.well-known/agent-card.json) and prints its name,
capabilities, interfaces, skills and security schemes. When the card is not a valid A2A 1.0
card, prints it as received with every problem found and exits 1.

With --json, prints the card as JSON.

${SHARED_HELP}

Exit codes: 0 valid card, 1 invalid card, 2 usage error, 3 the card could not be fetched or no
interface of the card can be used (e.g. with --binding).`;

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  const spec = { name: 'card', help: HELP, options: SHARED_OPTIONS };
  return runCommand(spec, args, async ({ terminal, url, connect }) => {
    // The client validates the card before it hands it out; keep the body to show what was wrong.
    // Creating the client makes one request, the card's: `fetch` sees it as received.
    let received: string | undefined;
    const keepCard: FetchFunction = async (request) => {
      const response = await fetch(request);
      if (response.ok) received = await response.clone().text();
      return response;
    };
    try {
      const client = await connect({ fetch: keepCard });
      if (terminal.json) terminal.jsonDocument(client.card);
      else writeCard(terminal, client.card, client.selectedInterface);
      return ExitCode.Success;
    } catch (error) {
      const raw = parseJson(received);
      if (error instanceof AgentCardError && error.violations.length > 0) {
        if (terminal.json) terminal.jsonDocument(raw ?? null);
        else writeInvalidCard(terminal, raw, error.violations);
        const count = error.violations.length;
        terminal.error(
          `tandem: the agent card of ${url} is invalid (${count} problem${count === 1 ? '' : 's'})`,
        );
        return ExitCode.TaskFailed;
      }
      const card =
        error instanceof NoCompatibleInterfaceError ? parseMessage('AgentCard', raw) : undefined;
      if (card?.success !== true) throw error;
      // A valid card this client cannot use: show it, then say why it cannot be used.
      if (terminal.json) terminal.jsonDocument(card.value);
      else writeCard(terminal, card.value, undefined);
      terminal.error(`tandem: ${failureOf(error).message}`);
      return ExitCode.Connection;
    }
  });
}
