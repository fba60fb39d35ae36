/**
 * What the orchestrator tests share: servers on loopback (closed after the file), the demo
 * agents as peers behind an identity hook that records what they were sent, an orchestrator
 * whose callers carry a credential of their own, and readers of answers and streams.
 */

import { afterAll } from 'vitest';
import {
  createCardResolver,
  createClient,
  type A2AClient,
  type Message,
  type StreamResponse,
  type Task,
} from '../../../src/client.js';
import {
  createNodeServer,
  createRequestHandler,
  type A2ANodeServer,
  type AgentDefinition,
  type Authenticator,
} from '../../../src/server.js';
import { dice } from '../../../src/agents/dice.js';
import { echo } from '../../../src/agents/echo.js';
import { translator } from '../../../src/agents/translator.js';
import {
  createOrchestratorAgent,
  type OrchestratorConfig,
} from '../../../src/agents/orchestrator/orchestrator-agent.js';

const servers: A2ANodeServer[] = [];

afterAll(async () => {
  await Promise.all(servers.splice(0).map((node) => node.shutdown({ deadlineMs: 1_000 })));
});

/** Serves agents under `/agents/<name>` on a loopback port. */
export async function serve(
  agents: Record<string, AgentDefinition>,
  authenticate?: Authenticator,
): Promise<{ url: string; node: A2ANodeServer }> {
  const node = createNodeServer({
    agents: Object.entries(agents).map(([name, agent]) => ({
      path: `/agents/${name}`,
      handler: createRequestHandler({ agent, agentName: name }),
    })),
    ...(authenticate === undefined ? {} : { authenticate }),
  });
  servers.push(node);
  const { url } = await node.listen({ port: 0, host: '127.0.0.1' });
  return { url: url.replace(/\/$/, ''), node };
}

/** The demo agents as peers, and the `Authorization` header of every call they received. */
export async function startDemoPeers(): Promise<{
  dice: string;
  translator: string;
  echo: string;
  authorization: (string | null | undefined)[];
}> {
  const authorization: (string | null | undefined)[] = [];
  const { url } = await serve({ dice, translator, echo }, ({ headers }) => {
    authorization.push(headers.get('authorization'));
    return { id: 'orchestrator', anonymous: true };
  });
  return {
    dice: `${url}/agents/dice`,
    translator: `${url}/agents/translator`,
    echo: `${url}/agents/echo`,
    authorization,
  };
}

/** An orchestrator of `config.peers`, its client calling with a credential of its own. */
export async function orchestrator(
  config: Omit<OrchestratorConfig, 'cardResolver'> &
    Partial<Pick<OrchestratorConfig, 'cardResolver'>>,
): Promise<A2AClient> {
  const agent = createOrchestratorAgent({ cardResolver: createCardResolver(), ...config });
  const { url } = await serve({ orchestrator: agent }, ({ headers }) =>
    headers.get('authorization') === 'Bearer caller-secret-token'
      ? { id: 'alice', anonymous: false }
      : { id: 'anonymous', anonymous: true },
  );
  return createClient(`${url}/agents/orchestrator`, {
    cardResolver: createCardResolver(),
    auth: { bearerToken: 'caller-secret-token' },
  });
}

/** A client of a peer, with a card cache of its own. */
export function clientOf(url: string): Promise<A2AClient> {
  return createClient(url, { cardResolver: createCardResolver() });
}

export function answerOf(task: Task): string {
  return (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? '')).join('');
}

export function textOf(message: Pick<Message, 'parts'> | undefined): string {
  return message?.parts.map((p) => p.text ?? '').join('') ?? '';
}

export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
