/**
 * The Check view's seam: the conformance checker of `tandem/check` (`checkAgent`), given to the
 * inspector by whoever starts it, so that the inspector's own code loads without it and the Check
 * view says so when a build lacks it. The types are the part of the checker's contract the
 * inspector uses.
 */

import type { ClientAuth } from '../client.js';
import type { CheckAreaView, CheckResultView } from './inspector-api.js';

/** The bindings the checker knows. */
export type CheckBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** What the inspector passes to `checkAgent` (a part of its `CheckOptions`). */
export interface CheckRunOptions {
  readonly bindings?: readonly CheckBinding[];
  readonly level?: 'must' | 'should' | 'may';
  readonly safe?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  readonly auth?: ClientAuth;
  readonly signal?: AbortSignal;
  readonly onCheck?: (result: CheckResultView) => void;
  readonly onPlan?: (plan: { readonly total: number }) => void;
}

/** The report, as far as the inspector reads it (a part of `CheckReport`). */
export interface CheckRunReport {
  readonly versions: readonly string[];
  readonly bindings: readonly string[];
  readonly summary: {
    readonly passed: number;
    readonly failed: number;
    readonly skipped: number;
    readonly warnings: number;
  };
  readonly checks: readonly CheckResultView[];
}

/** `checkAgent` of `tandem/check`. */
export type CheckAgent = (url: string, options?: CheckRunOptions) => Promise<CheckRunReport>;

/** The checker and its areas (`CHECK_AREAS`), loaded when the Check view first runs it. */
export type CheckLoader = () => Promise<{
  readonly checkAgent: CheckAgent;
  readonly areas: readonly CheckAreaView[];
}>;
