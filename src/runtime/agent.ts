/**
 * The agent author's API. An agent is a card plus an `execute` function that receives an
 * {@link AgentContext} for each incoming message and either replies with one direct message or
 * works on a task through the context's methods. The author never sees sequence numbers, stores
 * or wire formats.
 *
 * @example
 * ```ts
 * export const dice = defineAgent({
 *   card: { name: 'Dice', description: 'Rolls dice', skills: [rollSkill] },
 *   async execute(ctx) {
 *     const spec = parseDice(ctx.text);
 *     if (!spec) return ctx.inputRequired('What should I roll? For example "2d6".');
 *     await ctx.artifact([textPart(describe(spec)), dataPart({ sum: 7 })]);
 *     return ctx.complete();
 *   },
 * });
 * ```
 */

import type {
  AgentCapabilities,
  AgentCard,
  Artifact,
  Message,
  Task,
} from '../protocol/generated/types.js';
import type { Struct } from '../protocol/json.js';
import type { MessageContent } from '../protocol/builders.js';
import type { CallContext } from './call-context.js';

/**
 * Who sent the message an execution works on: the part of the binding's {@link CallContext} an
 * agent sees — the `Principal` (the authenticated identity, which owns the task) and the
 * tenant it addressed. Transport details (extensions negotiated, protocol version, resume
 * position) stay with the call.
 */
export type Caller = Pick<CallContext, 'principal' | 'tenant'>;

/** Options of {@link AgentContext.artifactStream}: the artifact the chunks make up. */
export interface ArtifactStreamOptions {
  /** A new UUID by default; give one to continue an artifact emitted earlier. */
  artifactId?: string | undefined;
  name?: string | undefined;
  description?: string | undefined;
  metadata?: Struct | undefined;
  extensions?: string[] | undefined;
  /**
   * The first chunk appends too, to an artifact the client already holds (one emitted by an
   * earlier execution of the task, say). By default the first chunk creates the artifact.
   */
  append?: boolean | undefined;
}

/**
 * An artifact written chunk by chunk, as a model produces it: see {@link
 * AgentContext.artifactStream}. It holds back the latest chunk until the next one (or the end)
 * comes, so that it can mark the last chunk `lastChunk` itself: the stream's end need not be
 * known before its last chunk.
 */
export interface ArtifactStream {
  readonly artifactId: string;
  /**
   * Adds a chunk. The first one creates the artifact with the stream's name, description,
   * metadata and extensions; the others append their parts. Resolves when the chunk before it
   * is written (as {@link AgentContext.artifact} resolves): `await` it to follow the store's pace.
   */
  append(content: MessageContent): Promise<void>;
  /**
   * Ends the stream, with a last chunk if given: the last chunk written is marked `lastChunk`.
   * A stream ended before any chunk writes nothing. Appending after the end is a `UsageError`.
   */
  end(content?: MessageContent): Promise<void>;
}

/** Options of {@link AgentContext.artifact}. */
export interface ArtifactUpdateOptions {
  /** Reuse an id to update or extend an artifact; a new UUID otherwise. */
  artifactId?: string | undefined;
  name?: string | undefined;
  description?: string | undefined;
  metadata?: Struct | undefined;
  extensions?: string[] | undefined;
  /** Append these parts to the artifact with the same id instead of replacing it. */
  append?: boolean | undefined;
  /**
   * This is the artifact's final chunk. Defaults to true for a whole artifact (no `append`), which
   * is complete in one piece, and to false for appended parts; pass `false` to start an artifact
   * that later appends continue.
   */
  lastChunk?: boolean | undefined;
}

/**
 * What an execution can see and do: a plain object made for each execution, nothing of the
 * runtime behind it. Changes are stored in the order they are made, and reach the task's readers
 * only once stored. A status change resolves once stored; an artifact change may resolve as soon
 * as it is queued, while few changes wait for their commit (on stores whose appends are
 * pipelined: every built-in store), so that a stream's chunks share commits — `await` still slows a
 * producer down to the store. If storing a change fails, none after it is stored and the next
 * call rejects with that error.
 *
 * Which calls are refused:
 * - after the task is canceled (see {@link signal}), changes are dropped silently;
 * - after `inputRequired()` or `authRequired()` the execution's turn is over: the client was
 *   asked for something, and its next message starts a new execution that continues the task.
 *   Any further change rejects with a `UsageError` (a forgotten `return` must not complete the
 *   task); returning is all that is left to do, and does not complete the task;
 * - after the agent itself ended the task, a further change rejects with an
 *   `InvalidTransitionError`.
 */
export interface AgentContext {
  /** The incoming message, validated, with `taskId` and `contextId` filled in. */
  readonly message: Message;
  /** The text of the message's text parts, joined with newlines. */
  readonly text: string;
  /** The id of the task this execution works on (created on the first task change). */
  readonly taskId: string;
  readonly contextId: string;
  /**
   * The task this message continues, as it was when the message arrived (its history ends with
   * this message), or `undefined` for a message that starts a new task.
   */
  readonly task: Task | undefined;
  /** Earlier tasks of the same context, most recently updated first. */
  contextTasks(options?: { limit?: number }): Promise<Task[]>;
  readonly caller: Caller;
  /** Extensions the client requested that this agent declares. */
  readonly extensions: readonly string[];
  /** The request's `configuration.acceptedOutputModes`, if any. */
  readonly acceptedOutputModes: readonly string[] | undefined;
  /** The request's `metadata`, if any. */
  readonly metadata: Struct | undefined;
  /** Fires when the task is canceled or the server shuts down. */
  readonly signal: AbortSignal;

  /**
   * Answers with one direct `Message` and no task (spec 3.1.1). Only allowed as the first and only
   * action on a message that does not continue a task.
   */
  reply(content: MessageContent, options?: { metadata?: Struct }): Promise<void>;
  /** Marks the task `WORKING`, optionally with a progress message for the client. */
  working(message?: MessageContent): Promise<void>;
  /**
   * Emits a whole artifact, marked `lastChunk` since nothing follows it. Returns its id.
   * (`append`, or `lastChunk: false`, make it one chunk of an artifact instead;
   * {@link artifactStream} does that bookkeeping itself.)
   */
  artifact(content: MessageContent | Artifact, options?: ArtifactUpdateOptions): Promise<string>;
  /**
   * Starts an artifact written chunk by chunk:
   * `const out = ctx.artifactStream({ name }); for await (const t of tokens) await out.append(t);
   * await out.end();` — the first chunk creates the artifact, the others append, and the last is
   * marked `lastChunk`.
   */
  artifactStream(options?: ArtifactStreamOptions): ArtifactStream;
  /**
   * Appends parts to the artifact `artifactId`, emitted earlier (perhaps by an earlier execution
   * of the task): `artifact(content, { artifactId, append: true, lastChunk })`.
   */
  append(
    artifactId: string,
    content: MessageContent,
    options?: { lastChunk?: boolean },
  ): Promise<void>;
  /**
   * Moves the task to `INPUT_REQUIRED` and ends this execution's turn: the next message on the
   * task resumes it in a new execution. Write `return ctx.inputRequired(...)`.
   */
  inputRequired(message: MessageContent): Promise<void>;
  /**
   * Moves the task to `AUTH_REQUIRED`, explaining what authorization is needed (spec 7.6.1), and
   * ends this execution's turn, as {@link inputRequired} does.
   */
  authRequired(message: MessageContent): Promise<void>;
  /** Completes the task, optionally with a final status message. */
  complete(message?: MessageContent): Promise<void>;
  /** Fails the task; the reason is shown to the client. */
  fail(reason?: MessageContent): Promise<void>;
  /** Rejects the task: the agent will not perform it. */
  reject(reason?: MessageContent): Promise<void>;
}

/**
 * Runs one execution: a new message, or the next message of an interrupted task. Returning
 * without ending or interrupting the task completes it; a thrown error fails it with a safe
 * message (the error itself goes to the log, never to the client).
 *
 * An A2A error (`ContentTypeNotSupportedError`, `InvalidParamsError`...) thrown by a new message's
 * execution before its first task change or reply refuses the message instead: the call is
 * answered with that error, as the runtime's own checks are, and no task is created.
 */
export type AgentExecute = (ctx: AgentContext) => Promise<void> | void;

/** The card fields an agent author writes; the server fills interfaces and capabilities. */
export type AgentCardInput = Omit<
  AgentCard,
  | 'supportedInterfaces'
  | 'capabilities'
  | 'version'
  | 'defaultInputModes'
  | 'defaultOutputModes'
  | 'skills'
> & {
  /** Defaults to `"1.0.0"`. */
  version?: string;
  /** Defaults to `["text/plain"]`. */
  defaultInputModes?: string[];
  /** Defaults to `["text/plain"]`. */
  defaultOutputModes?: string[];
  skills: AgentCard['skills'];
  /** Defaults: streaming on, push notifications off, no extended card. */
  capabilities?: AgentCapabilities;
};

/** An agent: its card and its logic. */
export interface AgentDefinition {
  readonly card: AgentCardInput;
  readonly execute: AgentExecute;
  /**
   * The extended card returned by `GetExtendedAgentCard` (spec 3.1.11); declare
   * `capabilities.extendedAgentCard` to offer it.
   */
  readonly extendedCard?: AgentCardInput | undefined;
}

/** Declares an agent. Identity function that gives agent code full type inference. */
export function defineAgent(definition: AgentDefinition): AgentDefinition {
  return definition;
}
