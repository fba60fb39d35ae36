/**
 * One delegation: the orchestrator's task handed to a peer's task, and everything the peer does
 * relayed as the orchestrator's own — artifact chunks as they stream, progress messages, and the
 * end: completed, failed or rejected with the peer's reason, or INPUT_REQUIRED with the peer's
 * question. That question carries a reference to the peer task (in its first part's metadata,
 * {@link PEER_TASK_KEY}), so that the caller's answer, which resumes the orchestrator's task in
 * a new execution, goes on to the same peer task — also after a restart: the reference is in the
 * stored task.
 *
 * What goes to the peer is the message's parts and nothing else: no metadata, no extensions, and
 * never the caller's credentials (the orchestrator has none of them to give; its clients are its
 * own). When the orchestrator's task is canceled, so is the peer's.
 *
 * A peer that answers as if its card had changed — an unknown method, a version or media type it
 * no longer takes, a 404 where its interface was, a refused connection — before it accepted the
 * message has its card read again once, and the message is sent again on the fresh card.
 */

import {
  CallTimeoutError,
  ConnectionError,
  ContentTypeNotSupportedError,
  HttpStatusError,
  NoCompatibleInterfaceError,
  TaskNotCancelableError,
  UnsupportedOperationError,
  type A2AClient,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
} from '../../client.js';
import type { JsonValue, Struct, TaskStatus } from '../../index.js';
import { MethodNotFoundError, VersionNotSupportedError } from '../../index.js';
import type { AgentContext, Logger } from '../../server.js';
import type { Peer, PeerDirectory } from './peer-directory.js';
import { callFailureOf, cardFailureOf, warnPeerFailure } from './peer-failure.js';

/** Where, in the metadata of a question's first part, the peer task it came from is named. */
export const PEER_TASK_KEY = 'tandem.orchestrator/peerTask';

/** The peer task an interrupted orchestrator task waits on. */
export interface PeerTaskRef {
  /** The peer's {@link Peer.key}. */
  readonly peer: string;
  readonly taskId: string;
  readonly contextId: string;
}

function refOf(value: JsonValue | undefined): PeerTaskRef | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { peer, taskId, contextId } = value;
  if (typeof peer !== 'string' || typeof taskId !== 'string' || typeof contextId !== 'string') {
    return undefined;
  }
  return { peer, taskId, contextId };
}

/** The peer task the orchestrator's last question came from, if the task asked one. */
export function pendingPeerTask(task: Task | undefined): PeerTaskRef | undefined {
  const history = task?.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i] as Message;
    if (message.role !== 'ROLE_AGENT') continue;
    const ref = refOf(message.parts[0]?.metadata?.[PEER_TASK_KEY]);
    if (ref !== undefined) return ref;
  }
  return undefined;
}

/** What one delegation needs. */
export interface Delegation {
  readonly ctx: AgentContext;
  readonly directory: PeerDirectory;
  readonly peer: Peer;
  /** The peer task to continue (the caller answered its question); a new one otherwise. */
  readonly continuing?: PeerTaskRef;
  /** Message metadata for the peer (the caller's reference, when configured). */
  readonly metadata?: Struct;
  /** Where each failure to reach or use the peer is logged, at warn. */
  readonly logger: Logger;
}

/** A part as the peer gets it: its content, name and media type; not its metadata. */
function forwardPart(part: Part): Part {
  const { metadata: _metadata, ...content } = part;
  return content;
}

function textOfParts(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .flatMap((part) => (part.text === undefined ? [] : [part.text]))
    .join(' ')
    .trim();
}

/** Errors that say the cached card no longer describes the peer. */
function looksStale(error: unknown, continuing: boolean): boolean {
  if (error instanceof CallTimeoutError) return false;
  if (error instanceof ConnectionError || error instanceof NoCompatibleInterfaceError) return true;
  if (error instanceof HttpStatusError) return [404, 405, 410].includes(error.status);
  if (
    error instanceof MethodNotFoundError ||
    error instanceof VersionNotSupportedError ||
    error instanceof ContentTypeNotSupportedError
  ) {
    return true;
  }
  // For a new message this means "no such operation here" (streaming gone, say).
  return error instanceof UnsupportedOperationError && !continuing;
}

/** Runs a delegation to its end (or to the peer's question). */
export async function delegate(delegation: Delegation): Promise<void> {
  const { ctx, directory, logger } = delegation;
  let peer = delegation.peer;
  const failed = (reason: string): Promise<void> => {
    warnPeerFailure(logger, { taskId: ctx.taskId, url: peer.url, peer: peer.key }, reason);
    return ctx.fail(reason);
  };
  for (let attempt = 0; ; attempt++) {
    const outcome = await new PeerRelay(delegation, peer).run();
    if (outcome === 'done') return;
    if (attempt > 0) {
      return failed(callFailureOf(outcome.error, peer.card.name) ?? 'The delegation failed');
    }
    directory.refresh(peer.url);
    const fresh = await directory.peer(peer.url, ctx.signal);
    if (!('card' in fresh)) return failed(cardFailureOf(fresh.error, peer.card.name));
    peer = fresh;
  }
}

/** One attempt at relaying a peer task. */
class PeerRelay {
  readonly #delegation: Delegation;
  readonly #peer: Peer;
  readonly #ctx: AgentContext;
  #client: A2AClient | undefined;
  #taskId: string | undefined;
  #contextId: string | undefined;
  /** The peer took the message: from now on, a failure is the step's, not the card's. */
  #accepted = false;
  #canceling: Promise<void> | undefined;

  constructor(delegation: Delegation, peer: Peer) {
    this.#delegation = delegation;
    this.#peer = peer;
    this.#ctx = delegation.ctx;
    this.#taskId = delegation.continuing?.taskId;
    this.#contextId = delegation.continuing?.contextId;
  }

  get #name(): string {
    return this.#peer.card.name;
  }

  async run(): Promise<'done' | { readonly error: unknown }> {
    const ctx = this.#ctx;
    const onAbort = (): void => void this.#cancelPeer();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      this.#client = await this.#delegation.directory.clientOf(this.#peer);
      if (ctx.signal.aborted) return 'done';
      const request = this.#request();
      if (this.#peer.card.capabilities.streaming === true) {
        for await (const event of this.#client.sendStreamingMessage(request, {
          signal: ctx.signal,
        })) {
          this.#accepted = true;
          if (await this.#relay(event)) return 'done';
        }
        await ctx.fail(`The stream from ${this.#name} ended before its task did`);
        return 'done';
      }
      const answer = await this.#client.sendMessage(request, { signal: ctx.signal });
      this.#accepted = true;
      if (answer.message !== undefined) await this.#relay({ message: answer.message });
      else if (answer.task !== undefined) await this.#relay({ task: answer.task });
      return 'done';
    } catch (error) {
      if (ctx.signal.aborted) {
        await this.#canceling;
        return 'done';
      }
      if (!this.#accepted && looksStale(error, this.#delegation.continuing !== undefined)) {
        return { error };
      }
      const reason = callFailureOf(error, this.#name);
      if (reason === undefined) throw error;
      const peer = { taskId: ctx.taskId, url: this.#peer.url, peer: this.#peer.key };
      warnPeerFailure(this.#delegation.logger, peer, reason);
      await ctx.fail(reason);
      return 'done';
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  #request() {
    const message: {
      parts: Part[];
      taskId?: string;
      contextId?: string;
      metadata?: Struct;
    } = { parts: this.#ctx.message.parts.map(forwardPart) };
    if (this.#taskId !== undefined) message.taskId = this.#taskId;
    if (this.#contextId !== undefined) message.contextId = this.#contextId;
    if (this.#delegation.metadata !== undefined) message.metadata = this.#delegation.metadata;
    return { message };
  }

  /**
   * Cancels the peer's task (once). A peer task that ended meanwhile needs no cancel; any other
   * failure rejects the promise, which the step awaits before it ends, so that it reaches the
   * log (the orchestrator's task is CANCELED or FAILED already: its client learns nothing more).
   */
  #cancelPeer(): Promise<void> {
    const client = this.#client;
    const taskId = this.#taskId;
    if (client === undefined || taskId === undefined) return Promise.resolve();
    if (this.#canceling === undefined) {
      const canceling = client.cancelTask({ id: taskId }, { timeoutMs: 10_000 }).then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof TaskNotCancelableError) return;
          throw error;
        },
      );
      // Started from an abort listener: awaited later, where the step ends, not here.
      canceling.catch(() => undefined);
      this.#canceling = canceling;
    }
    return this.#canceling;
  }

  /** Relays one event of the peer; true once the step is over (ended or interrupted). */
  async #relay(event: StreamResponse): Promise<boolean> {
    const ctx = this.#ctx;
    if (event.task !== undefined) {
      this.#taskId = event.task.id;
      this.#contextId = event.task.contextId;
      if (ctx.signal.aborted) await this.#cancelPeer();
      const { state } = event.task.status;
      if (state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING') return false;
      // A task already over (an agent that does not stream): its artifacts come with it.
      if (this.#delegation.continuing === undefined) {
        for (const artifact of event.task.artifacts ?? []) await ctx.artifact(artifact);
      }
      return this.#status(event.task.status);
    }
    if (event.artifactUpdate !== undefined) {
      const { artifact, append, lastChunk } = event.artifactUpdate;
      await ctx.artifact(artifact, { append: append === true, lastChunk: lastChunk === true });
      return false;
    }
    if (event.statusUpdate !== undefined) {
      this.#taskId ??= event.statusUpdate.taskId;
      return this.#status(event.statusUpdate.status);
    }
    if (event.message !== undefined) {
      await ctx.artifact(event.message.parts.map(forwardPart), { name: 'answer' });
      await ctx.complete();
      return true;
    }
    return false;
  }

  async #status(status: TaskStatus): Promise<boolean> {
    const ctx = this.#ctx;
    const parts = status.message?.parts;
    const text = textOfParts(parts);
    switch (status.state) {
      case 'TASK_STATE_SUBMITTED':
      case 'TASK_STATE_WORKING':
      case 'TASK_STATE_UNSPECIFIED':
        if (parts !== undefined && parts.length > 0) await ctx.working(parts.map(forwardPart));
        return false;
      case 'TASK_STATE_INPUT_REQUIRED': {
        await ctx.inputRequired(this.#question(parts));
        return true;
      }
      case 'TASK_STATE_AUTH_REQUIRED': {
        // Nothing will answer the peer's request for authorization: its task goes first, and a
        // failure to cancel it is rethrown (for the log) once the step has failed.
        const canceled = await this.#cancelPeer().then(
          () => undefined,
          (error: unknown) => ({ error }),
        );
        await ctx.fail(
          `${this.#name} asks for authorization, which the orchestrator does not pass on${text === '' ? '' : `: ${text}`}`,
        );
        if (canceled !== undefined) throw canceled.error;
        return true;
      }
      case 'TASK_STATE_COMPLETED':
        await ctx.complete(
          parts === undefined || parts.length === 0 ? undefined : parts.map(forwardPart),
        );
        return true;
      case 'TASK_STATE_FAILED':
        await ctx.fail(`${this.#name} failed: ${text === '' ? 'it gave no reason' : text}`);
        return true;
      case 'TASK_STATE_REJECTED':
        await ctx.reject(`${this.#name} declined: ${text === '' ? 'it gave no reason' : text}`);
        return true;
      case 'TASK_STATE_CANCELED':
        await ctx.fail(`${this.#name} canceled its task`);
        return true;
    }
  }

  /** The peer's question, its first part naming the peer task the answer goes to. */
  #question(parts: readonly Part[] | undefined): Part[] {
    const ref: PeerTaskRef = {
      peer: this.#peer.key,
      taskId: this.#taskId ?? '',
      contextId: this.#contextId ?? '',
    };
    const question = (parts ?? []).map(forwardPart);
    const first = question[0] ?? { text: `${this.#name} needs more input.` };
    question[0] = { ...first, metadata: { [PEER_TASK_KEY]: { ...ref } } };
    return question;
  }
}
