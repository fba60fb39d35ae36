/**
 * The Check view's seam: the conformance checker of `tandem/check` (`checkAgent`), given to the
 * inspector by whoever starts it, so that the inspector's own code loads without it and the Check
 * view says so when a build lacks it. The types are the part of the checker's contract the
 * inspector uses.
 */

import type { ClientAuth, ProtocolBindingName } from '../client.js';
import type { CheckResultView } from './inspector-api.js';

/** What the inspector passes to `checkAgent`. */
export interface CheckRunOptions {
  readonly bindings?: readonly ProtocolBindingName[];
  readonly level?: 'must' | 'should' | 'may';
  readonly safe?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  readonly auth?: ClientAuth;
  readonly signal?: AbortSignal;
  readonly onCheck?: (result: CheckResultView) => void;
}

/** The report, as far as the inspector reads it. */
export interface CheckRunReport {
  readonly versions: readonly unknown[];
  readonly bindings: readonly unknown[];
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

/** Loads the checker when the Check view first runs it. */
export type CheckLoader = () => Promise<CheckAgent>;
