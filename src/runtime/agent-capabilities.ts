/**
 * What an agent declares and what the runtime enforces from it (spec 3.3.4, 4.6): the card the
 * runtime serves (without interfaces, which the HTTP layer adds), capability checks, extension
 * negotiation and the accepted input media types.
 */

import type { AgentCapabilities, AgentCard, Part } from '../protocol/generated/types.js';
import {
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
} from '../protocol/errors.js';
import type { AgentCardInput, AgentDefinition } from './agent.js';
import type { Logger } from './logger.js';

/** A card as the runtime serves it: complete except for `supportedInterfaces`. */
export type RuntimeCard = Omit<AgentCard, 'supportedInterfaces'>;

/** Fills the defaults of an author's card. */
export function completeCard(input: AgentCardInput, capabilities: AgentCapabilities): RuntimeCard {
  return {
    ...input,
    version: input.version ?? '1.0.0',
    defaultInputModes: input.defaultInputModes ?? ['text/plain'],
    defaultOutputModes: input.defaultOutputModes ?? ['text/plain'],
    capabilities,
  };
}

/**
 * The capabilities the runtime can honour for an agent. Push notifications are what the handler
 * was given (`push`): a declaration of them without push delivery is turned off (and logged)
 * rather than advertised falsely.
 */
export function effectiveCapabilities(
  agent: AgentDefinition,
  logger: Logger,
  push = false,
): AgentCapabilities {
  const declared = agent.card.capabilities ?? {};
  if (declared.pushNotifications === true && !push) {
    logger.warn(
      { agent: agent.card.name },
      'push notifications are not enabled for this agent; capabilities.pushNotifications is served as false',
    );
  }
  const capabilities: AgentCapabilities = {
    streaming: declared.streaming ?? true,
    pushNotifications: push && declared.pushNotifications !== false,
    extendedAgentCard: declared.extendedAgentCard ?? agent.extendedCard !== undefined,
  };
  if (declared.extensions !== undefined) capabilities.extensions = declared.extensions;
  return capabilities;
}

/** Throws `UnsupportedOperationError` unless the agent streams (spec 3.3.4). */
export function requireStreaming(capabilities: AgentCapabilities, method: string): void {
  if (capabilities.streaming !== true) {
    throw new UnsupportedOperationError(
      `${method} needs streaming, which this agent does not support (capabilities.streaming is false); use SendMessage and GetTask instead`,
    );
  }
}

/**
 * The error for every push-notification request (spec 3.3.4) to an agent served without push
 * notifications, which declares `capabilities.pushNotifications: false`.
 */
export function pushNotificationsUnavailable(): PushNotificationNotSupportedError {
  return new PushNotificationNotSupportedError(
    'Push notifications are not supported by this agent (capabilities.pushNotifications is false); poll with GetTask or stream with SubscribeToTask instead',
  );
}

/** The extended card, or the error of spec 3.3.4 when there is none. */
export function extendedCardOf(
  agent: AgentDefinition,
  capabilities: AgentCapabilities,
): RuntimeCard {
  if (capabilities.extendedAgentCard !== true) {
    throw new UnsupportedOperationError(
      'This agent does not offer an extended agent card (capabilities.extendedAgentCard is false)',
    );
  }
  if (agent.extendedCard === undefined) {
    throw new ExtendedAgentCardNotConfiguredError(
      'This agent declares an extended agent card but none is configured',
    );
  }
  return completeCard(agent.extendedCard, capabilities);
}

/**
 * Checks the client's extensions against the card: every `required` extension must be requested
 * (spec 4.6.3). Returns the requested extensions the agent declares.
 */
export function negotiateExtensions(
  capabilities: AgentCapabilities,
  requested: readonly string[],
): string[] {
  const declared = capabilities.extensions ?? [];
  const missing = declared.filter(
    (ext) => ext.required === true && !requested.includes(ext.uri ?? ''),
  );
  if (missing.length > 0) {
    const uris = missing.map((ext) => ext.uri ?? '').join(', ');
    throw new ExtensionSupportRequiredError(
      `This agent requires the extension(s) ${uris}; declare support in the A2A-Extensions header`,
      { metadata: { extensions: uris } },
    );
  }
  return requested.filter((uri) => declared.some((ext) => ext.uri === uri));
}

function mediaTypeMatches(accepted: string, mediaType: string): boolean {
  const a = accepted.toLowerCase().split(';')[0]?.trim() ?? '';
  const m = mediaType.toLowerCase().split(';')[0]?.trim() ?? '';
  if (a === '*/*' || a === m) return true;
  return a.endsWith('/*') && m.startsWith(a.slice(0, -1));
}

/** The media types an agent accepts: its defaults and those of all its skills. */
export function acceptedInputModes(card: RuntimeCard): string[] {
  const modes = new Set(card.defaultInputModes);
  for (const skill of card.skills) for (const mode of skill.inputModes ?? []) modes.add(mode);
  return [...modes];
}

/**
 * Refuses a message part whose declared media type the agent does not accept (spec 3.1.1,
 * ContentTypeNotSupportedError). Parts without a media type are left to the agent.
 */
export function checkInputMediaTypes(parts: readonly Part[], accepted: readonly string[]): void {
  for (let index = 0; index < parts.length; index++) {
    const mediaType = (parts[index] as Part).mediaType;
    if (mediaType === undefined || mediaType === '') continue;
    if (accepted.some((mode) => mediaTypeMatches(mode, mediaType))) continue;
    throw new ContentTypeNotSupportedError(
      `message.parts[${index}] has media type ${mediaType}, which this agent does not accept; accepted: ${accepted.join(', ')}`,
      { metadata: { mediaType, field: `message.parts[${index}].mediaType` } },
    );
  }
}
