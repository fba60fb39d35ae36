/**
 * An artifact written chunk by chunk ({@link ArtifactStream}). A producer such as a model does not
 * know which chunk is its last until it has ended, but the protocol marks the last chunk itself
 * (`lastChunk`): the stream therefore holds back the latest chunk and writes it when the next one
 * comes, or marked last when the stream ends. The first chunk written creates the artifact with
 * the stream's fields; the others only append their parts (so a SQL store rewrites no fields).
 * The options of each kind of write are made once per stream, not per chunk.
 */

import type { Artifact } from '../protocol/generated/types.js';
import { UsageError, asError } from '../protocol/local-errors.js';
import { newUuid } from '../protocol/uuid.js';
import type { ArtifactStream, ArtifactStreamOptions, ArtifactUpdateOptions } from './agent.js';
import { artifactOf, type MessageContent } from './agent-content.js';
import type { ExecutionPort } from './execution-port.js';

const RESOLVED: Promise<void> = Promise.resolve();

/** The artifact stream of one execution. */
export class ExecutionArtifactStream implements ArtifactStream {
  readonly artifactId: string;
  readonly #execution: ExecutionPort;
  /** What the first chunk carries: the artifact's fields. */
  readonly #first: ArtifactUpdateOptions;
  /** What every later chunk carries: the artifact's id. */
  readonly #next: ArtifactUpdateOptions;
  readonly #appendFirst: boolean;
  /** The latest chunk, checked and copied when it was given, not written yet. */
  #held: Artifact | undefined;
  #written = 0;
  #ended = false;

  constructor(execution: ExecutionPort, options: ArtifactStreamOptions) {
    this.#execution = execution;
    this.artifactId = options.artifactId ?? newUuid();
    this.#appendFirst = options.append === true;
    const first: ArtifactUpdateOptions = { artifactId: this.artifactId };
    if (options.name !== undefined) first.name = options.name;
    if (options.description !== undefined) first.description = options.description;
    if (options.metadata !== undefined) first.metadata = options.metadata;
    if (options.extensions !== undefined) first.extensions = options.extensions;
    this.#first = first;
    this.#next = { artifactId: this.artifactId };
  }

  append(content: MessageContent): Promise<void> {
    if (this.#ended) return Promise.reject(this.#afterEnd('append'));
    const held = this.#held;
    let chunk: Artifact;
    try {
      chunk = this.#chunkOf(content, held === undefined);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    this.#held = chunk;
    return held === undefined ? RESOLVED : this.#write(held, false);
  }

  end(content?: MessageContent): Promise<void> {
    if (this.#ended) return Promise.reject(this.#afterEnd('end'));
    const held = this.#held;
    let last: Artifact | undefined;
    try {
      last = content === undefined ? undefined : this.#chunkOf(content, held === undefined);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    this.#ended = true;
    this.#held = undefined;
    if (last === undefined) return held === undefined ? RESOLVED : this.#write(held, true);
    if (held === undefined) return this.#write(last, true);
    const final = last;
    return this.#write(held, false).then(() => this.#write(final, true));
  }

  /** A chunk as written: the first carries the artifact's fields, the others its id only. */
  #chunkOf(content: MessageContent, nothingHeld: boolean): Artifact {
    const first = nothingHeld && this.#written === 0;
    return artifactOf(content, first ? this.#first : this.#next);
  }

  #write(chunk: Artifact, lastChunk: boolean): Promise<void> {
    const append = this.#written > 0 || this.#appendFirst;
    this.#written++;
    // The outcome (applied, or dropped after a cancel) is nothing the producer acts on.
    return this.#execution.emitArtifact(chunk, append, lastChunk) as Promise<void>;
  }

  #afterEnd(method: string): UsageError {
    return new UsageError(
      `${method}() was called on the artifact stream ${this.artifactId} after end(); start another artifactStream() for a new artifact`,
    );
  }
}
