/**
 * A connection to one agent, as the Connect view makes it: the card read the way the client
 * reads it (so a 0.3 card is translated, and a broken one is shown with every problem and its
 * field path), the interface chosen by the binding and version the user picked, the signature
 * status, and a client whose every exchange the wire log records. Credentials live in this
 * object's memory only; what the page sees of it ({@link ConnectionView}) names them, never
 * their values.
 */

import { createPublicKey, randomUUID } from 'node:crypto';
import {
  AgentCardError,
  createCardResolver,
  createClient,
  NoCompatibleInterfaceError,
  verifyAgentCard,
  type A2AClient,
  type AgentCard,
  type ClientAuth,
  type FetchFunction,
  type ProtocolBindingName,
  type PublicJwk,
} from '../client.js';
import { createCredentialMask, type CredentialMask } from './credential-mask.js';
import type {
  BindingChoice,
  ConnectRequest,
  ConnectionView,
  FailureView,
  SignatureStatus,
  VersionChoice,
} from './inspector-api.js';
import { InspectorInputError } from './inspector-errors.js';
import { eventIdInterceptor, type EventIds } from './stream-relay.js';
import { createWireCapture } from './wire-capture.js';
import type { SecretPlaceholder } from './wire-commands.js';
import type { WireLog } from './wire-log.js';

/** An open connection. */
export interface AgentConnection {
  readonly id: string;
  readonly view: ConnectionView;
  /** The client, when an interface of the card fits. */
  readonly client: A2AClient | undefined;
  readonly ids: EventIds;
  readonly mask: CredentialMask;
  /** What a conformance check of the agent needs to reach it as this connection does. */
  readonly reach: {
    readonly url: string;
    readonly auth: ClientAuth | undefined;
    readonly headers: Readonly<Record<string, string>>;
    readonly bindings: readonly ProtocolBindingName[] | undefined;
  };
}

/** What opening a connection needs from the inspector. */
export interface ConnectionDependencies {
  readonly log: WireLog;
  /** The URL of the inspector's push receiver. */
  readonly receiverUrl: string;
  readonly describe: (error: unknown) => FailureView;
  /** The fetch under the capture; the global one by default. */
  readonly fetch?: FetchFunction;
}

const BINDINGS: readonly BindingChoice[] = ['auto', 'JSONRPC', 'HTTP+JSON', 'GRPC'];
const VERSIONS: readonly VersionChoice[] = ['auto', '1.0', '0.3'];

/** The credentials of a request, checked: which field is wrong, and why. */
function readCredentials(request: ConnectRequest): {
  auth: ClientAuth | undefined;
  headers: Record<string, string>;
  secrets: string[];
  headerNames: string[];
  placeholders: SecretPlaceholder[];
} {
  const credentials = request.credentials ?? {};
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  const headerNames: string[] = [];
  const placeholders: SecretPlaceholder[] = [];
  for (const [index, entry] of (credentials.headers ?? []).entries()) {
    const name = typeof entry.name === 'string' ? entry.name.trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new InspectorInputError(
        `credentials.headers[${index}].name ${JSON.stringify(entry.name)} is not a header name`,
      );
    }
    if (typeof entry.value !== 'string' || /[\r\n]/.test(entry.value)) {
      throw new InspectorInputError(`credentials.headers[${index}].value must be one line of text`);
    }
    headers[name] = entry.value;
    secrets.push(entry.value);
    headerNames.push(name);
  }
  const token = credentials.bearerToken?.trim();
  const key = credentials.apiKey;
  const auth: { bearerToken?: string; apiKey?: NonNullable<ClientAuth['apiKey']> } = {};
  if (token !== undefined && token !== '') {
    auth.bearerToken = token;
    secrets.push(token);
    placeholders.push({ secret: token, variable: 'TANDEM_TOKEN' });
  }
  if (key !== undefined && key.value.trim() !== '') {
    const location = key.location;
    if (location !== undefined && !['header', 'query', 'cookie'].includes(location)) {
      throw new InspectorInputError(
        `credentials.apiKey.location must be header, query or cookie; got ${JSON.stringify(location)}`,
      );
    }
    const name = key.name?.trim();
    auth.apiKey = {
      value: key.value.trim(),
      ...(name === undefined || name === '' ? {} : { name }),
      ...(location === undefined ? {} : { location }),
    };
    secrets.push(key.value.trim());
    if (name !== undefined && name !== '') headerNames.push(name);
    placeholders.push({ secret: key.value.trim(), variable: 'TANDEM_API_KEY' });
  }
  return {
    auth: Object.keys(auth).length === 0 ? undefined : auth,
    headers,
    secrets,
    headerNames,
    placeholders,
  };
}

/** The trusted keys of the text the user pasted: PEM, a JWK or a JWKS. */
function trustedKeysOf(text: string): PublicJwk[] {
  if (text.includes('-----BEGIN')) {
    try {
      return [createPublicKey(text).export({ format: 'jwk' })];
    } catch (error) {
      throw new InspectorInputError('trustedKey is not a PEM public key', { cause: error });
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InspectorInputError('trustedKey is neither PEM nor JSON (a JWK or a JWKS)', {
      cause: error,
    });
  }
  const value = parsed as { keys?: unknown; kty?: unknown } | null;
  if (Array.isArray(value?.keys)) return value.keys as PublicJwk[];
  if (typeof value?.kty === 'string') return [value as PublicJwk];
  throw new InspectorInputError('trustedKey is JSON but neither a JWK nor a JWKS');
}

async function signatureOf(
  card: AgentCard,
  cardUrl: string,
  trustedKey: string | undefined,
): Promise<SignatureStatus> {
  const count = card.signatures?.length ?? 0;
  if (count === 0) return { state: 'unsigned' };
  if (trustedKey === undefined || trustedKey.trim() === '') {
    return { state: 'unverified', count, reason: 'no trusted key was given to verify it with' };
  }
  try {
    const verified = await verifyAgentCard(card, { keys: trustedKeysOf(trustedKey) }, cardUrl);
    return { state: 'verified', kid: verified.kid ?? null, alg: verified.alg };
  } catch (error) {
    if (!(error instanceof AgentCardError)) throw error;
    return { state: 'invalid', count, reason: error.message };
  }
}

/** The card with only the interfaces of `version`, when one is asked for. */
function atVersion(card: AgentCard, version: VersionChoice): AgentCard {
  if (version === 'auto') return card;
  return {
    ...card,
    supportedInterfaces: card.supportedInterfaces.filter(
      (i) => i.protocolVersion === version || i.protocolVersion.startsWith(`${version}.`),
    ),
  };
}

/**
 * Opens a connection: reads the card and, when an interface fits, creates the client.
 *
 * @throws InspectorInputError for a request that is not valid; the client's errors when the card
 *   cannot be fetched at all.
 */
export async function openConnection(
  request: ConnectRequest,
  dependencies: ConnectionDependencies,
): Promise<AgentConnection> {
  if (typeof request.url !== 'string' || request.url.trim() === '') {
    throw new InspectorInputError('url is required: the base URL or card URL of the agent');
  }
  const url = request.url.trim();
  const binding = request.binding ?? 'auto';
  const version = request.version ?? 'auto';
  if (!BINDINGS.includes(binding)) {
    throw new InspectorInputError(
      `binding must be one of ${BINDINGS.join(', ')}; got ${String(binding)}`,
    );
  }
  if (!VERSIONS.includes(version)) {
    throw new InspectorInputError(
      `version must be one of ${VERSIONS.join(', ')}; got ${String(version)}`,
    );
  }
  const credentials = readCredentials(request);
  const mask = createCredentialMask({
    secrets: credentials.secrets,
    headerNames: credentials.headerNames,
  });
  let selectedBinding = 'card';
  const capture = createWireCapture({
    log: dependencies.log,
    mask,
    binding: () => selectedBinding,
    commands: {
      agentUrl: url,
      binding,
      headers: Object.entries(credentials.headers),
      placeholders: credentials.placeholders,
    },
    ...(dependencies.fetch === undefined ? {} : { fetch: dependencies.fetch }),
  });
  // The card as received, to show it when it is not valid.
  let rawCard: unknown;
  const keepCard: FetchFunction = async (fetched) => {
    const response = await capture.fetch(fetched);
    if (fetched.method === 'GET' && response.ok) {
      try {
        rawCard = JSON.parse(await response.clone().text()) as unknown;
      } catch {
        rawCard = undefined;
      }
    }
    return response;
  };
  const resolver = createCardResolver();
  const ids: EventIds = new WeakMap();
  const base = {
    id: randomUUID(),
    url,
    binding,
    version,
    receiverUrl: dependencies.receiverUrl,
    credentials: {
      bearerToken: credentials.auth?.bearerToken !== undefined,
      apiKey: credentials.auth?.apiKey !== undefined,
      headers: Object.keys(credentials.headers),
    },
  };
  const reach = {
    url,
    auth: credentials.auth,
    headers: credentials.headers,
    bindings: binding === 'auto' ? undefined : [binding],
  };
  let resolved;
  try {
    resolved = await resolver.resolve(url, {
      fetch: keepCard,
      headers: credentials.headers,
      interceptors: [capture.interceptor],
    });
  } catch (error) {
    if (!(error instanceof AgentCardError) || error.violations.length === 0) throw error;
    return {
      id: base.id,
      client: undefined,
      ids,
      mask,
      reach,
      view: {
        ...base,
        cardUrl: url,
        rawCard,
        violations: error.violations,
        versions: [],
        signature: { state: 'unsigned' },
        failure: dependencies.describe(error),
      },
    };
  }
  const card = resolved.card;
  const versions = [...new Set(card.supportedInterfaces.map((i) => i.protocolVersion))];
  const signature = await signatureOf(card, resolved.url, request.trustedKey);
  const view = {
    ...base,
    cardUrl: resolved.url,
    card,
    rawCard: rawCard ?? card,
    violations: [],
    versions,
    signature,
  };
  let client: A2AClient;
  try {
    client = await createClient(resolved.url, {
      card: atVersion(card, version),
      cardResolver: resolver,
      fetch: capture.fetch,
      interceptors: [capture.interceptor, eventIdInterceptor(ids)],
      headers: credentials.headers,
      ...(credentials.auth === undefined ? {} : { auth: credentials.auth }),
      ...(binding === 'auto' ? {} : { bindings: [binding] }),
    });
  } catch (error) {
    if (!(error instanceof NoCompatibleInterfaceError)) throw error;
    return {
      id: base.id,
      client: undefined,
      ids,
      mask,
      reach,
      view: { ...view, failure: dependencies.describe(error) },
    };
  }
  selectedBinding = client.selectedInterface.protocolBinding;
  return {
    id: base.id,
    client,
    ids,
    mask,
    reach,
    view: { ...view, selected: client.selectedInterface },
  };
}
