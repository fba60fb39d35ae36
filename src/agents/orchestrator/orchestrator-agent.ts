/**
 * The orchestrator agent: it does nothing itself, and hands each request to the peer agent whose
 * skills fit it (`skill-routing.ts`, or a chat model when one is configured), relaying that
 * peer's work as its own (`peer-delegation.ts`). A request that no peer fits is answered with a
 * direct message listing the skills that exist. A task whose peer asked a question waits for the
 * caller's answer, which goes back to the same peer task.
 */

import { createHash } from 'node:crypto';
import type { Struct } from '../../index.js';
import {
  defineAgent,
  silentLogger,
  type AgentContext,
  type AgentDefinition,
  type Logger,
} from '../../server.js';
import type { ChatModelOptions } from '../chat/chat-completions.js';
import { ModelError } from '../chat/model-error.js';
import { routeByModel } from './model-routing.js';
import { delegate, pendingPeerTask } from './peer-delegation.js';
import {
  PeerDirectory,
  type PeerDirectoryOptions,
  type UnreachablePeer,
} from './peer-directory.js';
import { cardFailureOf, warnPeerFailure } from './peer-failure.js';
import { describeSkills, routeByScore, type Route } from './skill-routing.js';

/** Where a peer finds the caller's reference, when {@link OrchestratorConfig.callerReference}. */
export const CALLER_REFERENCE_KEY = 'tandem.orchestrator/caller';

/**
 * Where a peer finds how many orchestrators a request has passed through: an orchestrator that
 * is (through others) its own peer must not hand a request around for ever.
 */
export const HOPS_KEY = 'tandem.orchestrator/hops';

/** The most orchestrators a request passes through; the last one answers instead of delegating. */
export const MAX_HOPS = 5;

function hopsOf(ctx: AgentContext): number {
  const hops = ctx.message.metadata?.[HOPS_KEY];
  return typeof hops === 'number' && Number.isInteger(hops) && hops >= 0 ? hops : 0;
}

/** The orchestrator's settings. */
export interface OrchestratorConfig extends PeerDirectoryOptions {
  /** The peers' base URLs (or card URLs), in order of preference on a tie. */
  readonly peers: readonly string[];
  /** A chat model that routes requests; without one, skills are scored. */
  readonly routingModel?: ChatModelOptions;
  /**
   * Pass the peer a reference to the caller — a digest of its tenant and principal, the same
   * for every request of the caller and telling nothing else — in the message metadata
   * ({@link CALLER_REFERENCE_KEY}). Off by default: peers learn nothing of the caller.
   */
  readonly callerReference?: boolean;
  readonly name?: string;
  readonly description?: string;
  /**
   * Where each failure upstream is logged at warn, with the task id and the reason: a peer whose
   * card cannot be read or is invalid, a call to a peer that fails, a routing model that fails.
   * Neither message contents nor credentials are logged. Default: nothing is logged.
   */
  readonly logger?: Logger | undefined;
}

function callerMetadata(ctx: AgentContext): Struct {
  const { principal, tenant } = ctx.caller;
  const digest = createHash('sha256').update(`${tenant}\u0000${principal.id}`).digest('hex');
  return { [CALLER_REFERENCE_KEY]: digest.slice(0, 32) };
}

/** Creates an orchestrator of the given peers. */
export function createOrchestratorAgent(config: OrchestratorConfig): AgentDefinition {
  const directory = new PeerDirectory(config.peers, config);
  const logger = config.logger ?? silentLogger;
  const routeByModelOrScore = async (
    ctx: AgentContext,
    peers: Parameters<typeof routeByScore>[1],
  ): Promise<Route | undefined> => {
    if (config.routingModel !== undefined) {
      try {
        const chosen = await routeByModel(config.routingModel, ctx.text, peers, ctx.signal);
        if (chosen !== undefined) return chosen ?? undefined;
      } catch (error) {
        if (!(error instanceof ModelError)) throw error;
        // The score still routes the request; the operator should know the model is failing.
        logger.warn(
          { taskId: ctx.taskId, reason: error.message },
          'orchestrator: the routing model failed; routing by skill scores instead',
        );
      }
    }
    return routeByScore(ctx.text, peers);
  };
  /** Logs every peer that could not be read. */
  const warnUnreachable = (ctx: AgentContext, unreachable: readonly UnreachablePeer[]): void => {
    for (const peer of unreachable) {
      warnPeerFailure(logger, { taskId: ctx.taskId, url: peer.url, peer: peer.key }, peer.reason);
    }
  };
  return defineAgent({
    card: {
      name: config.name ?? 'Orchestrator',
      description:
        config.description ??
        'Hands each request to the agent whose skills fit it, and relays its answer: streamed ' +
          'output, its questions (answer them here), its result. Ask for something no agent ' +
          'does to hear which skills exist.',
      version: '1.0.0',
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain', 'application/json'],
      capabilities: { streaming: true },
      skills: [
        {
          id: 'delegate',
          name: 'Delegate to a peer agent',
          description:
            'Routes the request by the skills on the peers’ agent cards (tags, examples, names) ' +
            'and relays the chosen peer’s work.',
          tags: ['orchestrator', 'delegation', 'routing'],
          examples: ['roll 2d6', 'Translate "Good morning" to Chinese'],
        },
      ],
    },
    async execute(ctx) {
      const hops = hopsOf(ctx) + 1;
      const metadata: Struct = {
        ...(config.callerReference === true ? callerMetadata(ctx) : {}),
        [HOPS_KEY]: hops,
      };
      const pending = pendingPeerTask(ctx.task);
      if (pending !== undefined) {
        const url = directory.urlOf(pending.peer);
        if (url === undefined) {
          return ctx.fail('The agent this task was waiting on is no longer one I delegate to');
        }
        const peer = await directory.peer(url, ctx.signal);
        if (!('card' in peer)) {
          const reason = cardFailureOf(peer.error, 'the agent this task waits on');
          warnPeerFailure(logger, { taskId: ctx.taskId, url, peer: peer.key }, reason);
          return ctx.fail(reason);
        }
        return delegate({
          ctx,
          directory,
          peer,
          continuing: pending,
          metadata,
          logger,
        });
      }
      if (hops >= MAX_HOPS) {
        return ctx.reply(
          `This request has passed through ${MAX_HOPS} orchestrators already; it is not handed on again (do the orchestrators list each other as peers?)`,
        );
      }
      const { peers, unreachable } = await directory.read(ctx.signal);
      warnUnreachable(ctx, unreachable);
      if (peers.length === 0 && unreachable.length > 0) {
        // Nothing can answer: the task failed, and says why, rather than completing empty.
        const reasons = unreachable.map((peer) => peer.reason).join('; ');
        return ctx.fail(`No agent I delegate to can be used: ${reasons}`);
      }
      const chosen = await routeByModelOrScore(ctx, peers);
      if (chosen === undefined) {
        const skills = describeSkills(peers, unreachable.length);
        // A continued task cannot be answered by a direct message.
        return ctx.task === undefined ? ctx.reply(skills) : ctx.complete(skills);
      }
      await ctx.working(`Asking ${chosen.peer.card.name} (${chosen.skill.name}).`);
      return delegate({
        ctx,
        directory,
        peer: chosen.peer,
        metadata,
        logger,
      });
    },
  });
}
