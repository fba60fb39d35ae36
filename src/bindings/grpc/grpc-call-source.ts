/**
 * What the shared pipeline and the identity hook read of one gRPC call, in the shapes every binding
 * hands them: the metadata as a {@link HeaderReader} (spec 10.2: service parameters and
 * credentials travel as metadata, keys in lower case), the peer (address, and the client
 * certificate when the connection is TLS and the certificate was verified), and an abort signal
 * that fires when the client cancels the call or goes away. Signal and peer are made on first
 * access only: most calls never read them.
 */

import type { PeerCertificate as NodePeerCertificate } from 'node:tls';
import type { Metadata, ServerUnaryCall } from '@grpc/grpc-js';
import { GRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { ANONYMOUS, type Principal } from '../../runtime/call-context.js';
import type { HeaderReader, PeerCertificate, PeerIdentity } from '../server/http-exchange.js';
import type { AgentRouter, CallSource, RoutedAgent } from '../server/prepare-call.js';
import type { TrustedProxies } from '../server/trusted-proxies.js';

/** What every kind of server call has (grpc-js does not export its name for it). */
type ServerSurfaceCall = Omit<ServerUnaryCall<unknown, unknown>, 'request'>;

/** gRPC metadata read like request headers: several values of one key are joined with `, `. */
export class MetadataReader implements HeaderReader {
  readonly #metadata: Metadata;

  constructor(metadata: Metadata) {
    this.#metadata = metadata;
  }

  get(name: string): string | undefined {
    // Binary (`-bin`) keys carry no service parameter; reading them as text would mangle them.
    if (name.endsWith('-bin')) return undefined;
    const values = this.#metadata.get(name);
    if (values.length === 0) return undefined;
    if (values.length === 1) return String(values[0]);
    return values.map(String).join(', ');
  }
}

/** The address part of a grpc-js peer string (`ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000`). */
function addressOf(peer: string): string | undefined {
  const bracketed = /^ipv6:\[([^\]]+)\]/.exec(peer);
  if (bracketed !== null) return bracketed[1];
  const ipv4 = /^ipv4:([^:]+):/.exec(peer);
  if (ipv4 !== null) return ipv4[1];
  const plain = /^([0-9.]+):\d+$/.exec(peer);
  return plain?.[1];
}

type Fields = Readonly<Record<string, string | readonly string[]>>;

/** The fields Node reports as set (its type allows `undefined` values). */
function fieldsOf(value: object | undefined): Fields {
  const fields: Record<string, string | readonly string[]> = {};
  for (const [key, field] of Object.entries(value ?? {})) {
    if (typeof field === 'string' || Array.isArray(field)) fields[key] = field as string[];
  }
  return fields;
}

/**
 * The verified client certificate of a call: grpc-js reports a peer certificate only when the
 * TLS handshake verified it against the server's CAs, so an unverified one never reaches the
 * identity hook.
 */
function certificateOf(call: ServerSurfaceCall): PeerCertificate | undefined {
  const context = call.getAuthContext();
  const raw: NodePeerCertificate | undefined = context.sslPeerCertificate;
  if (context.transportSecurityType !== 'ssl' || raw?.fingerprint256 === undefined) {
    return undefined;
  }
  return {
    subject: fieldsOf(raw.subject),
    issuer: fieldsOf(raw.issuer),
    fingerprint256: raw.fingerprint256,
    serialNumber: raw.serialNumber,
    validFrom: raw.valid_from,
    validTo: raw.valid_to,
  };
}

/** Picks the agent of a request by its tenant, and the authority (`host:port`) it came to. */
export type GrpcAgentRouter = (tenant: string, authority: string) => RoutedAgent;

/**
 * One call as the pipeline reads it: its metadata as the service parameters, the principal once
 * the identity hook has decided, the signal and peer (made when first read), and the agent its
 * request's tenant routes to.
 */
export class GrpcCallSource implements CallSource, AgentRouter {
  readonly binding = GRPC_BINDING;
  readonly serviceParameters: MetadataReader;
  readonly query = '';
  /** Set once the identity hook has let the call through. */
  principal: Principal = ANONYMOUS;
  readonly #call: ServerSurfaceCall;
  readonly #router: GrpcAgentRouter;
  readonly #proxies: TrustedProxies | undefined;
  #controller: AbortController | undefined;
  #peer: PeerIdentity | undefined;

  constructor(call: ServerSurfaceCall, router: GrpcAgentRouter, proxies?: TrustedProxies) {
    this.#call = call;
    this.#router = router;
    this.#proxies = proxies;
    this.serviceParameters = new MetadataReader(call.metadata);
  }

  route(tenant: string): RoutedAgent {
    return this.#router(tenant, this.#call.getHost());
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#call.cancelled) controller.abort();
      else this.#call.once('cancelled', () => controller.abort());
    }
    return this.#controller.signal;
  }

  get peer(): PeerIdentity {
    if (this.#peer === undefined) {
      const address = addressOf(this.#call.getPeer());
      this.#peer = {
        address:
          this.#proxies === undefined
            ? address
            : this.#proxies.clientAddress(address, this.serviceParameters),
        certificate: certificateOf(this.#call),
      };
    }
    return this.#peer;
  }
}
