/**
 * The attribute names Tandem's spans and metrics carry. Where the OpenTelemetry conventions name
 * a thing (semantic-conventions-genai `a2a.md`, the general `error.type`, `server.*`, `rpc.*`),
 * their name is used; where they stop, the name is Tandem's and docs/observability.md says so.
 * Nothing here is high-cardinality unless its comment says it is span-only.
 */

/** The A2A operation (`SendMessage`...), on every span and operation metric. */
export const ATTR_A2A_METHOD_NAME = 'a2a.method.name';
/** The message's id (span-only: one value per call). */
export const ATTR_A2A_MESSAGE_ID = 'a2a.message.id';
/** The task's id (span-only). */
export const ATTR_A2A_TASK_ID = 'a2a.task.id';
/** The task's state as its `TASK_STATE_*` name. */
export const ATTR_A2A_TASK_STATE = 'a2a.task.state';
/** The request's `tenant`. */
export const ATTR_A2A_TENANT = 'a2a.tenant';
/** Task ids the request message refers to (span-only). */
export const ATTR_A2A_REFERENCE_TASK_IDS = 'a2a.message.reference_task_ids';
/** `1.0`, or `0.3` for a call through a 0.3 door. */
export const ATTR_A2A_PROTOCOL_VERSION = 'a2a.protocol.version';
/**
 * The protocol binding, as `AgentInterface.protocolBinding` names it (`JSONRPC`, `HTTP+JSON`,
 * `GRPC`). Tandem's: the conventions have no binding attribute.
 */
export const ATTR_A2A_PROTOCOL_BINDING = 'a2a.protocol.binding';
/**
 * Why a stream ended: `completed`, `client_gone`, `canceled` or `error`. Tandem's: the
 * conventions say a streaming span lasts to the stream's end, not how to tell ends apart.
 */
export const ATTR_A2A_STREAM_END_REASON = 'a2a.stream.end_reason';
/** Events a stream carried. Tandem's. */
export const ATTR_A2A_STREAM_EVENTS = 'a2a.stream.events';
/** The contextId (span-only). */
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
/** The agent card's name. */
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
/** The agent card's version. */
export const ATTR_GEN_AI_AGENT_VERSION = 'gen_ai.agent.version';
/** The class of failure, low-cardinality: see `errorTypeOf`. */
export const ATTR_ERROR_TYPE = 'error.type';
/** The host of the interface a client calls. */
export const ATTR_SERVER_ADDRESS = 'server.address';
/** The port of the interface a client calls. */
export const ATTR_SERVER_PORT = 'server.port';

/** How a stream ended, as {@link ATTR_A2A_STREAM_END_REASON} records it. */
export type StreamEndReason = 'completed' | 'client_gone' | 'canceled' | 'error';

/**
 * The `error.type` of a failure nobody classified: the conventions' own fallback, so that an
 * unexpected exception never puts its message (or any unbounded value) into a label.
 */
export const OTHER_ERROR_TYPE = '_OTHER';
