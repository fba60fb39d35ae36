/**
 * The public contract of the conformance checker (`tandem/check`): what `checkAgent` takes and
 * what it returns. The report is exactly the document `tandem check --json` prints, so that a
 * test suite, a CI step and a user interface all read the same thing. Fields may be added over
 * time; none is renamed.
 */

import type { ClientAuth } from '../client/client-auth.js';
import type { CardTrust } from '../client/card-verification.js';
import type { ClientTls } from '../bindings/client/client-transport.js';

/**
 * How binding a requirement is: the RFC 2119 keyword of the specification that states it. A
 * failed `must` check fails the run; `should` and `may` checks that are not met are warnings.
 */
export type CheckLevel = 'must' | 'should' | 'may';

/**
 * The outcome of one check: `pass`, `fail` (a MUST is not met), `warn` (a SHOULD or MAY is not
 * met) or `skip` (the check could not run: the agent does not declare the feature, `--safe`
 * forbids it, or what it needs could not be obtained — the detail says which).
 */
export type CheckStatus = 'pass' | 'fail' | 'skip' | 'warn';

/** The three standard protocol bindings, as agent cards name them (spec 5.3). */
export type CheckBindingName = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** The protocol versions the checker speaks. */
export type CheckProtocolVersion = '1.0' | '0.3';

/** The areas checks are grouped in, in the order they run and are reported. */
export type CheckArea =
  'card' | 'version' | 'messages' | 'streaming' | 'push' | 'binding' | 'errors';

/** One check of the catalogue: what it verifies and which requirement of the spec says so. */
export interface CheckDefinition {
  /** Stable identifier, e.g. `task.get-unknown`; `--only` and `--skip` take it. */
  readonly id: string;
  /** What the check verifies, as one sentence. */
  readonly title: string;
  readonly area: CheckArea;
  /** The level of the requirement in A2A 1.0. */
  readonly level: CheckLevel;
  /** The section of the A2A 1.0 specification that states it, e.g. `3.1.5`. */
  readonly section: string;
  /**
   * Where the check runs: once for the agent (`agent`: the card), or once per interface of the
   * card (`interface`).
   */
  readonly scope: 'agent' | 'interface';
  /** The bindings it applies to; all when absent. */
  readonly bindings?: readonly CheckBindingName[];
  /**
   * How it applies to an A2A 0.3 interface: the section of the 0.3 specification and the level
   * there. Absent: the check is about 1.0 only.
   */
  readonly v03?: { readonly section: string; readonly level?: CheckLevel };
  /** Whether it runs on 1.0 interfaces (default true); false for checks of 0.3 shapes only. */
  readonly v10?: boolean;
}

/** A request as the checker sent it, credentials masked. */
export interface WireRequest {
  /** The HTTP method, or `gRPC` for a gRPC call. */
  readonly method: string;
  /** The URL, or for gRPC `host:port/package.Service/Method`. */
  readonly url: string;
  /** Headers (or gRPC metadata) as sent, credentials replaced by `•••`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The start of the body (for gRPC: the request in ProtoJSON). */
  readonly body?: string;
}

/** A response as the agent sent it. */
export interface WireResponse {
  /** The HTTP status, or the gRPC status as `NAME (code)`, e.g. `NOT_FOUND (5)`. */
  readonly status: string;
  /** Headers (or gRPC metadata and trailers) as received. */
  readonly headers: Readonly<Record<string, string>>;
  /** The start of the body as received: raw text, or for gRPC the message in ProtoJSON. */
  readonly body?: string;
}

/** The outcome of one check on one binding. */
export interface CheckResult {
  readonly id: string;
  readonly title: string;
  /** The level that applies: the 0.3 one when the check ran on a 0.3 interface. */
  readonly level: CheckLevel;
  /** The spec section, e.g. `§3.1.5` (1.0) or `0.3 §7.4` (0.3). */
  readonly section: string;
  readonly area: CheckArea;
  /** The binding the check ran on; `null` for checks of the agent card. */
  readonly binding: CheckBindingName | null;
  /** The protocol version spoken; `null` for checks of the agent card. */
  readonly version: CheckProtocolVersion | null;
  readonly status: CheckStatus;
  /** One line of why: what was expected and what the agent did, or why the check was skipped. */
  readonly detail: string;
  /** The request that shows it, when there is one. */
  readonly request?: WireRequest;
  /** The agent's answer to that request. */
  readonly response?: WireResponse;
}

/** Counts of the results by status. */
export interface CheckSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly warnings: number;
}

/** What the checker learned about the agent from its card. */
export interface CheckedAgent {
  /** The URL the check was started with. */
  readonly url: string;
  /** Where the card was found. */
  readonly cardUrl: string;
  /** The card's `name`, `description` and `version`, when it has them. */
  readonly name?: string;
  readonly description?: string;
  readonly agentVersion?: string;
}

/** The whole report: `tandem check --json` prints exactly this. */
export interface CheckReport {
  readonly agent: CheckedAgent;
  /** The protocol versions the checker spoke to the agent, e.g. `["1.0", "0.3"]`. */
  readonly versions: readonly CheckProtocolVersion[];
  /** The bindings it checked. */
  readonly bindings: readonly CheckBindingName[];
  readonly summary: CheckSummary;
  /** Every result, grouped by area in catalogue order, then by binding and version. */
  readonly checks: readonly CheckResult[];
  /** How long the whole check took, in ms. */
  readonly durationMs: number;
}

/** Options of `checkAgent`. */
export interface CheckOptions {
  /** Check only these bindings; default every binding the card declares. */
  readonly bindings?: readonly CheckBindingName[];
  /** Check only these protocol versions; default every version the card declares. */
  readonly versions?: readonly CheckProtocolVersion[];
  /** Run only these checks: ids (`task.get-unknown`), id prefixes (`task.`), areas or sections. */
  readonly only?: readonly string[];
  /** Leave out these checks: ids, id prefixes, areas or sections. */
  readonly skip?: readonly string[];
  /**
   * Run checks of this level and stricter: `must` runs MUST checks only, `should` MUST and
   * SHOULD, `may` (the default) all.
   */
  readonly level?: CheckLevel;
  /**
   * Read only: send no message and create, cancel or configure nothing, for agents in
   * production. Checks that need a task are skipped and say so.
   */
  readonly safe?: boolean;
  /**
   * The text to send when a check needs a message. Default: the first example of the card's
   * skills, else `hello`.
   */
  readonly message?: string;
  /** Time limit of each request, in ms (default 10 s). */
  readonly timeoutMs?: number;
  /** Headers added to every request (gRPC: metadata). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Credentials, as `createClient` takes them; sent to the interfaces, never to the card URL. */
  readonly auth?: ClientAuth;
  /** A client certificate and a CA to trust, for every binding and the card. */
  readonly tls?: ClientTls;
  /**
   * Keys trusted to sign the card, for `card.signature` when a signature names no `jku` (a
   * signature's `jku` is always tried).
   */
  readonly trust?: CardTrust;
  /**
   * `host:port` where the checker listens for push notifications: an address the agent can
   * reach. Without it, a receiver on 127.0.0.1 is used when the agent runs on loopback, and the
   * delivery check is skipped otherwise.
   */
  readonly receiver?: string;
  /** Aborts the check; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Called as each check finishes, in the order they finish (for progress). */
  readonly onCheck?: (result: CheckResult) => void;
  /** Called once the checks to run are known, with their count (for progress). */
  readonly onPlan?: (plan: { readonly total: number }) => void;
}
