/**
 * The A2A 0.3 wire shapes (`spec/v0.3/a2a.json`) that the translation layer reads and writes: the
 * JSON-RPC 0.3 objects, with `kind` discriminators, kebab-case enum values and the 0.3 card. Only
 * this folder sees them; everything behind it works on the 1.0 model.
 */

import type { JsonValue, Struct } from '../../../protocol/json.js';

/** 0.3 `TaskState`: lower-case kebab values. */
export type V03TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'auth-required'
  | 'unknown';

export type V03Role = 'user' | 'agent';

export interface V03TextPart {
  kind: 'text';
  text: string;
  metadata?: Struct;
}

export interface V03FileWithUri {
  uri: string;
  mimeType?: string;
  name?: string;
}

export interface V03FileWithBytes {
  bytes: string;
  mimeType?: string;
  name?: string;
}

export interface V03FilePart {
  kind: 'file';
  file: V03FileWithUri | V03FileWithBytes;
  metadata?: Struct;
}

export interface V03DataPart {
  kind: 'data';
  data: Struct;
  metadata?: Struct;
}

export type V03Part = V03TextPart | V03FilePart | V03DataPart;

export interface V03Message {
  kind: 'message';
  messageId: string;
  role: V03Role;
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  referenceTaskIds?: string[];
  extensions?: string[];
  metadata?: Struct;
}

export interface V03TaskStatus {
  state: V03TaskState;
  message?: V03Message;
  timestamp?: string;
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: Struct;
  extensions?: string[];
}

export interface V03Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: V03TaskStatus;
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: Struct;
}

export interface V03TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  final: boolean;
  metadata?: Struct;
}

export interface V03TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Struct;
}

/** What `message/stream` and `tasks/resubscribe` send, one per SSE event. */
export type V03StreamEvent =
  V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;

export interface V03PushNotificationAuthenticationInfo {
  schemes: string[];
  credentials?: string;
}

export interface V03PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: V03PushNotificationAuthenticationInfo;
}

export interface V03TaskPushNotificationConfig {
  taskId: string;
  pushNotificationConfig: V03PushNotificationConfig;
}

export interface V03MessageSendConfiguration {
  acceptedOutputModes?: string[];
  blocking?: boolean;
  historyLength?: number;
  pushNotificationConfig?: V03PushNotificationConfig;
}

export interface V03MessageSendParams {
  message: V03Message;
  configuration?: V03MessageSendConfiguration;
  metadata?: Struct;
}

/** 0.3 security schemes: an OpenAPI-like object discriminated by `type`. */
export type V03SecurityScheme =
  | { type: 'apiKey'; in: string; name: string; description?: string }
  | { type: 'http'; scheme: string; bearerFormat?: string; description?: string }
  | {
      type: 'oauth2';
      flows: { [flow: string]: { [key: string]: JsonValue } };
      oauth2MetadataUrl?: string;
      description?: string;
    }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string }
  | { type: 'mutualTLS'; description?: string };

/** `[{ schemeName: [scopes] }]`: any one object is enough, every scheme of it is needed. */
export type V03Security = { [scheme: string]: string[] }[];

export interface V03AgentInterface {
  url: string;
  transport: string;
}

/** The 0.3 top-level card fields that 1.0 moved or removed. */
export interface V03CardFields {
  protocolVersion: string;
  url: string;
  preferredTransport?: string;
  additionalInterfaces?: V03AgentInterface[];
  supportsAuthenticatedExtendedCard?: boolean;
  security?: V03Security;
}

/** The 0.3 JSON-RPC method names. */
export const V03_METHODS = [
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
] as const;

export type V03Method = (typeof V03_METHODS)[number];

/** Narrows a JSON-RPC method name to a 0.3 one. */
export function isV03Method(method: string): method is V03Method {
  return (V03_METHODS as readonly string[]).includes(method);
}

/** The version string 0.3 cards carry in `protocolVersion`. */
export const V03_CARD_VERSION = '0.3.0';

/** The `Major.Minor` of 0.3 interfaces in 1.0 cards. */
export const V03_VERSION = '0.3';
