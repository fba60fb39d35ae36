/**
 * `tandem card <url>`: fetches the agent card the way the client does (so `--token`, `--header`
 * and `--binding` apply), pretty-prints it and marks the interface the client would use. A card
 * that is not valid A2A 1.0 is shown as received with its problems, and the command exits 1.
 */

import { readFileSync } from 'node:fs';
import { createPublicKey } from 'node:crypto';
import {
  AgentCardError,
  NoCompatibleInterfaceError,
  verifyAgentCard,
  type CardTrust,
  type FetchFunction,
  type PublicJwk,
} from '../client.js';
import { parseMessage, type AgentCard } from '../index.js';
import { ExitCode } from './exit-code.js';
import { failureOf } from './errors-to-exit.js';
import { writeCard, writeInvalidCard } from './render-card.js';
import { UsageFailure } from './cli-values.js';
import { runCommand } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';

const HELP = `Usage: tandem card <url> [options]

Fetches the agent card of <url> (from /.well-known/agent-card.json) and prints its name,
capabilities, interfaces, skills and security schemes. When the card is not a valid A2A 1.0
card, prints it as received with every problem found and exits 1.

With --json, prints the card as JSON.

Signatures (spec 8.4):
  --verify                Check the card's signatures; exit 1 unless one verifies
  --trust-key <path>      A trusted public key: PEM, or a JWKS/JWK JSON file (repeatable)
  --trust-jku <url>       A JWKS URL a signature's jku may name (repeatable)

${SHARED_HELP}

Exit codes: 0 valid card (and, with --verify, a verified signature), 1 invalid card or no
signature that verifies, 2 usage error, 3 the card could not be fetched or no
interface of the card can be used (e.g. with --binding).`;

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const OPTIONS = {
  ...SHARED_OPTIONS,
  verify: { type: 'boolean' },
  'trust-key': { type: 'string', multiple: true },
  'trust-jku': { type: 'string', multiple: true },
} as const;

/** The trusted keys of a file: a PEM public key, a JWK, or a JWKS. */
function keysOfFile(path: string): PublicJwk[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageFailure(
      `--trust-key ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  if (text.includes('-----BEGIN')) {
    try {
      return [createPublicKey(text).export({ format: 'jwk' })];
    } catch {
      throw new UsageFailure(`--trust-key ${path} is not a PEM public key`);
    }
  }
  const parsed = parseJson(text) as { keys?: unknown; kty?: unknown } | undefined;
  if (Array.isArray(parsed?.keys)) return parsed.keys as PublicJwk[];
  if (typeof parsed?.kty === 'string') return [parsed as PublicJwk];
  throw new UsageFailure(`--trust-key ${path} is neither a PEM public key, a JWK nor a JWKS`);
}

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  const spec = { name: 'card', help: HELP, options: OPTIONS };
  return runCommand(spec, args, async ({ terminal, url, connect, values }) => {
    const trust: CardTrust = {
      keys: (values['trust-key'] ?? []).flatMap(keysOfFile),
      jwksUrls: values['trust-jku'] ?? [],
    };
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
      // A 0.3 card accepted by 0.3's rules: say what a 1.0 reader cannot rely on.
      for (const warning of client.cardWarnings) terminal.error(`tandem: warning: ${warning}`);
      if (values.verify !== true) return ExitCode.Success;
      try {
        // The card as received (spec 8.4.3), not as read into 1.0: with --compat 0.3 the served
        // card holds fields that the 1.0 reading drops, and a signature covers what was served.
        const asReceived = parseJson(received);
        const verified = await verifyAgentCard(
          typeof asReceived === 'object' && asReceived !== null
            ? (asReceived as AgentCard)
            : client.card,
          trust,
          url,
        );
        terminal.error(
          `tandem: the card's signature verifies (kid ${verified.kid ?? 'none'}, ${verified.alg}, key from ${verified.keySource})`,
        );
        return ExitCode.Success;
      } catch (error) {
        if (!(error instanceof AgentCardError)) throw error;
        terminal.error(`tandem: ${error.message}`);
        return ExitCode.TaskFailed;
      }
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
