/**
 * The contract between the inspector's page and its backend: what each `/api/*` route takes and
 * answers, and the lines of its streams. Types only, with no `node:` import, so that the page's
 * source (web/inspector) type-checks against the same declarations the backend implements.
 */

import type {
  AgentCard,
  AgentInterface,
  FieldViolation,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  Part,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '../index.js';

/** The header that carries the per-run token on every `/api` call. */
export const TOKEN_HEADER = 'x-inspector-token';

/** The binding to use, or `auto` for the client's choice (JSON-RPC, then HTTP+JSON, then gRPC). */
export type BindingChoice = 'auto' | 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** The protocol version to speak, or `auto` for 1.0 when offered, else 0.3. */
export type VersionChoice = 'auto' | '1.0' | '0.3';

/** Where an API key goes (spec 4.5.2). */
export type ApiKeyLocation = 'header' | 'query' | 'cookie';

/** Credentials as the page enters them; the backend keeps them in memory only. */
export interface Credentials {
  readonly bearerToken?: string;
  readonly apiKey?: {
    readonly value: string;
    readonly name?: string;
    readonly location?: ApiKeyLocation;
  };
  readonly headers?: ReadonlyArray<{ readonly name: string; readonly value: string }>;
}

/** `POST /api/connect`. */
export interface ConnectRequest {
  /** A base URL or card URL, as the user typed it. */
  readonly url: string;
  readonly binding?: BindingChoice;
  readonly version?: VersionChoice;
  readonly credentials?: Credentials;
  /** A public key (PEM, JWK or JWKS JSON) to verify the card's signatures with. */
  readonly trustedKey?: string;
}

/** A failure as the page shows it: the message the `tandem` command would print. */
export interface FailureView {
  /** The error's class (`TaskNotFoundError`, `ConnectionError`...). */
  readonly type: string;
  /** One line, as `tandem` prints it after `tandem: `. */
  readonly message: string;
  /** The exit code `tandem` would return. */
  readonly exitCode: number;
}

/** What the card's signatures say. */
export type SignatureStatus =
  | { readonly state: 'unsigned' }
  | { readonly state: 'unverified'; readonly count: number; readonly reason: string }
  | { readonly state: 'verified'; readonly kid: string | null; readonly alg: string }
  | { readonly state: 'invalid'; readonly count: number; readonly reason: string };

/** A connection to an agent, without its credentials. */
export interface ConnectionView {
  readonly id: string;
  /** The URL the user entered. */
  readonly url: string;
  /** The URL the card was read from. */
  readonly cardUrl: string;
  /** The card in the 1.0 shape (a 0.3 card translated), when it could be read. */
  readonly card?: AgentCard;
  /** The card's JSON as received. */
  readonly rawCard?: unknown;
  /** Every problem of the card, with its field path. */
  readonly violations: readonly FieldViolation[];
  /** The interface in use, when one fits. */
  readonly selected?: AgentInterface;
  /** The protocol versions the card's interfaces declare. */
  readonly versions: readonly string[];
  readonly signature: SignatureStatus;
  /** Which credentials are set (never their values). */
  readonly credentials: {
    readonly bearerToken: boolean;
    readonly apiKey: boolean;
    readonly headers: readonly string[];
  };
  readonly binding: BindingChoice;
  readonly version: VersionChoice;
  /** Why no interface can be used, when none can. */
  readonly failure?: FailureView;
  /** The inspector's push receiver for this agent (its URL, as the agent must reach it). */
  readonly receiverUrl: string;
}

/** A part as the composer builds it. */
export type ComposerPart =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'file';
      readonly filename: string;
      readonly mediaType: string;
      /** The file's bytes, base64. */
      readonly bytes: string;
    }
  | {
      readonly kind: 'url';
      readonly url: string;
      readonly filename?: string;
      readonly mediaType?: string;
    }
  | { readonly kind: 'data'; readonly data: unknown };

/** `POST /api/send`: one message; streamed (NDJSON of {@link StreamLine}) when `stream`. */
export interface SendRequest {
  readonly connectionId: string;
  readonly parts: readonly ComposerPart[];
  readonly stream: boolean;
  readonly contextId?: string;
  readonly taskId?: string;
  readonly returnImmediately?: boolean;
}

/** `POST /api/send` without `stream`: the answer. */
export interface SendAnswer {
  readonly task?: Task;
  readonly message?: Message;
  /** The message as sent. */
  readonly sent: Message;
}

/** One line of a streamed answer (`application/x-ndjson`). */
export type StreamLine =
  | { readonly kind: 'sent'; readonly message: Message }
  | {
      readonly kind: 'event';
      /** The SSE `id:` (or gRPC event id), when the agent sent one. */
      readonly eventId: string | null;
      readonly time: string;
      readonly payload: StreamResponse;
    }
  | {
      readonly kind: 'resumed';
      readonly time: string;
      /** The `Last-Event-ID` the client resumed after. */
      readonly lastEventId: string;
      readonly taskId: string;
    }
  | { readonly kind: 'error'; readonly failure: FailureView }
  | { readonly kind: 'end' };

/** `POST /api/tasks/list`. */
export interface ListTasksCall {
  readonly connectionId: string;
  readonly request: ListTasksRequest;
}
export type { ListTasksResponse };

/** `POST /api/tasks/get` and `/api/tasks/cancel`. */
export interface TaskCall {
  readonly connectionId: string;
  readonly id: string;
  readonly historyLength?: number;
}

/** `POST /api/tasks/subscribe` (NDJSON of {@link StreamLine}). */
export interface SubscribeCall {
  readonly connectionId: string;
  readonly id: string;
  /** Resume after this event (`Last-Event-ID`). */
  readonly lastEventId?: string;
}

/** `POST /api/push/create`: a config for the inspector's receiver, or for a URL given. */
export interface PushCreateCall {
  readonly connectionId: string;
  readonly taskId: string;
  /** The webhook; absent for the inspector's own receiver. */
  readonly url?: string;
  /** The token the agent must send; absent for a fresh one. */
  readonly token?: string;
}

/** `POST /api/push/list`. */
export interface PushListCall {
  readonly connectionId: string;
  readonly taskId: string;
}

/** `POST /api/push/delete`. */
export interface PushDeleteCall {
  readonly connectionId: string;
  readonly taskId: string;
  readonly id: string;
}

export type { TaskPushNotificationConfig };

/** One HTTP exchange (or gRPC call) as it went over the wire. */
export interface WireEntry {
  readonly id: number;
  readonly time: string;
  /** `GetAgentCard`, `SendMessage`... when known. */
  readonly operation: string | null;
  /** `JSONRPC`, `HTTP+JSON`, `GRPC`, or `card` for card fetches. */
  readonly binding: string;
  readonly request: {
    /** HTTP method, or `grpc` */
    readonly method: string;
    /** The URL (credentials in the query masked), or the gRPC method path. */
    readonly url: string;
    readonly headers: ReadonlyArray<readonly [string, string]>;
    readonly body: string | null;
  };
  readonly response: {
    /** HTTP status, or the gRPC status name (`OK`, `NOT_FOUND`...). */
    readonly status: number | string;
    readonly headers: ReadonlyArray<readonly [string, string]>;
    readonly body: string | null;
    /** Whether the body is a stream still arriving. */
    readonly streaming: boolean;
    /** Whether the body was cut at the capture limit. */
    readonly truncated: boolean;
  } | null;
  /** A failure before any response (connection refused...). */
  readonly error: string | null;
  /** Until the response ended; `null` while it runs. */
  readonly durationMs: number | null;
  readonly curl: string | null;
  readonly tandem: string | null;
}

/** One push notification the inspector's receiver got. */
export interface PushDelivery {
  readonly id: number;
  readonly time: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** Whether `X-A2A-Notification-Token` matched the token of a config the inspector created. */
  readonly token: 'match' | 'mismatch' | 'missing';
  readonly deliveryId: string | null;
  readonly taskId: string | null;
  readonly kind: string | null;
  readonly payload: unknown;
  /** Why the body is not a valid `StreamResponse`, if it is not. */
  readonly problems: readonly string[];
  /** What the receiver answered. */
  readonly status: number;
}

/** One line of `GET /api/live`: what happened in the backend since the page subscribed. */
export type LiveLine =
  | { readonly kind: 'wire'; readonly entry: WireEntry }
  | { readonly kind: 'push'; readonly delivery: PushDelivery }
  | { readonly kind: 'ready' };

/** `GET /api/session`: what the backend holds for a page that (re)loads. */
export interface SessionView {
  readonly connection: ConnectionView | null;
  readonly wire: readonly WireEntry[];
  readonly deliveries: readonly PushDelivery[];
  /** Whether the Check tab can run (`tandem/check` is part of this build). */
  readonly checkAvailable: boolean;
}

/** `POST /api/check`: runs the conformance checks; NDJSON of {@link CheckLine}. */
export interface CheckCall {
  readonly connectionId: string;
  readonly safe?: boolean;
  readonly level?: 'must' | 'should' | 'may';
}

/** A request a check sent, as `tandem check` reports it (credentials masked). */
export interface CheckRequestView {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** The agent's answer to a check's request. */
export interface CheckResponseView {
  readonly status: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** One check's outcome, as `tandem check` reports it (`CheckResult` of `tandem/check`). */
export interface CheckResultView {
  readonly id: string;
  readonly title: string;
  readonly level: string;
  /** The spec section, e.g. `§3.1.5`. */
  readonly section: string;
  /** The area it belongs to (`card`, `messages`...). */
  readonly area: string;
  /** The binding it ran on; `null` for checks of the card. */
  readonly binding: string | null;
  /** The protocol version spoken; `null` for checks of the card. */
  readonly version: string | null;
  readonly status: 'pass' | 'fail' | 'skip' | 'warn';
  readonly detail: string;
  readonly request?: CheckRequestView;
  readonly response?: CheckResponseView;
}

/** An area of the checks, in report order. */
export interface CheckAreaView {
  readonly area: string;
  readonly title: string;
}

/** One line of the check stream. */
export type CheckLine =
  | { readonly kind: 'plan'; readonly areas: readonly CheckAreaView[]; readonly total: number }
  | { readonly kind: 'result'; readonly result: CheckResultView }
  | {
      readonly kind: 'report';
      readonly summary: {
        readonly passed: number;
        readonly failed: number;
        readonly skipped: number;
        readonly warnings: number;
      };
      readonly versions: readonly string[];
      readonly bindings: readonly string[];
    }
  | { readonly kind: 'error'; readonly failure: FailureView };

/** A part of a message, as the page renders it. */
export type { Part };
