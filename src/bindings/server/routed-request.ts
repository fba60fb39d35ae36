/**
 * The {@link BindingRequest} the HTTP server hands a binding's route: the request, its path
 * variables and its caller, read by `prepareCall` as the call's source. A class, not an object
 * literal with getters: a literal with accessors gets a hidden class of its own on every
 * evaluation, on a path every request takes.
 */

import type { AgentInterface } from '../../protocol/generated/types.js';
import type { Principal } from '../../runtime/call-context.js';
import type { HeaderReader, HttpRequest, PeerIdentity } from './http-exchange.js';
import type { BindingRequest } from './server-binding.js';
import type { ServerBindingName } from './server-interceptor.js';

/** The interfaces of an agent under the base URL of a request. */
export type InterfacesOfRequest = (request: HttpRequest) => AgentInterface[];

/** A request routed to one binding of one agent. */
export class RoutedRequest implements BindingRequest {
  readonly #interfacesOf: InterfacesOfRequest;

  constructor(
    readonly binding: ServerBindingName,
    readonly http: HttpRequest,
    readonly params: Readonly<Record<string, string>>,
    readonly principal: Principal,
    interfacesOf: InterfacesOfRequest,
  ) {
    this.#interfacesOf = interfacesOf;
  }

  get serviceParameters(): HeaderReader {
    return this.http;
  }

  get query(): string {
    return this.http.query;
  }

  get signal(): AbortSignal {
    return this.http.signal;
  }

  get peer(): PeerIdentity {
    return this.http.peer;
  }

  agentInterfaces(): AgentInterface[] {
    return this.#interfacesOf(this.http);
  }
}
