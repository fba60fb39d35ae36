/**
 * The options every client command takes — credentials, extra headers, the binding, the time
 * limit and the output style — and their translation into the client's {@link ClientOptions}.
 * Commands spread {@link SHARED_OPTIONS} into their own `parseArgs` table, so the flags are
 * spelled and checked the same way everywhere.
 */

import type { ParseArgsConfig } from 'node:util';
import type { ClientOptions, ProtocolBindingName } from '../client.js';
import { parseDuration, parseHeader, UsageFailure } from './cli-values.js';
import { clientCredentialsFrom } from './client-credentials.js';
import { clientTlsOf } from './client-tls.js';
import type { TerminalSettings } from './terminal.js';

/** A `parseArgs` option table. */
export type OptionTable = NonNullable<ParseArgsConfig['options']>;

/** The flags shared by every client command. */
export const SHARED_OPTIONS = {
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-file': { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  ca: { type: 'string' },
  header: { type: 'string', multiple: true },
  binding: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionTable;

/** The help text of {@link SHARED_OPTIONS}, appended to each command's help. */
export const SHARED_HELP = `Connection and output options:
  --token-file <path>     Send Authorization: Bearer with the token in this file (or env
                          TANDEM_TOKEN; --token <token> works too, but ps shows it to everyone)
  --api-key-file <path>   Send the API key in this file where the card's scheme says (or env
                          TANDEM_API_KEY, or --api-key <key>, which ps shows)
  --cert <path>           A client certificate (PEM) for mutual TLS, with --key <path>
  --ca <path>             Trust this CA (PEM) for the agent's certificate
  --header 'Name: value'  Add a header to every request (repeatable)
  --binding <binding>     Use only this protocol binding: jsonrpc | rest | grpc
                          (default: JSON-RPC, then REST, then gRPC, as the card offers)
  --timeout <duration>    Time limit of each call: a number and a unit (ms, s, m, h, d),
                          e.g. 30s or 2m (default 60s, 0 for none); for streams, the wait
                          for the first event
  --json                  Machine-readable output on stdout (no colours, no spinner)
  --no-color              No colours (also when NO_COLOR is set)
  -h, --help              Show this help`;

/** The values of the shared flags, as `parseArgs` returns them. */
export interface SharedValues {
  readonly token?: string | undefined;
  readonly 'token-file'?: string | undefined;
  readonly 'api-key'?: string | undefined;
  readonly 'api-key-file'?: string | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly ca?: string | undefined;
  readonly header?: string[] | undefined;
  readonly binding?: string | undefined;
  readonly timeout?: string | undefined;
  readonly json?: boolean | undefined;
  readonly 'no-color'?: boolean | undefined;
  readonly help?: boolean | undefined;
}

/** The binding names of `--binding`, mapped to `AgentInterface.protocolBinding`. */
function bindingOf(value: string): ProtocolBindingName {
  switch (value.toLowerCase()) {
    case 'jsonrpc':
    case 'json-rpc':
      return 'JSONRPC';
    case 'rest':
    case 'http+json':
      return 'HTTP+JSON';
    case 'grpc':
      return 'GRPC';
    default:
      throw new UsageFailure(`--binding must be jsonrpc, rest or grpc, got "${value}"`);
  }
}

/**
 * Translates the shared flags into client options; `warn` is told about a secret given as a flag
 * value (`--token`), which other users of the machine can read.
 *
 * @throws UsageFailure for a flag value that is not valid.
 */
export function clientOptionsFrom(
  values: SharedValues,
  warn: (message: string) => void = () => {},
): ClientOptions {
  const headers: Record<string, string> = {};
  for (const line of values.header ?? []) {
    const [name, value] = parseHeader(line);
    headers[name] = value;
  }
  const { token, apiKey } = clientCredentialsFrom(values, warn);
  const auth = {
    ...(token === undefined ? {} : { bearerToken: token }),
    ...(apiKey === undefined ? {} : { apiKey: { value: apiKey } }),
  };
  const tls = clientTlsOf(values);
  return {
    ...(values.binding === undefined ? {} : { bindings: [bindingOf(values.binding)] }),
    ...(Object.keys(auth).length === 0 ? {} : { auth }),
    ...(tls === undefined ? {} : { fetch: tls.fetch, tls: tls.tls }),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...(values.timeout === undefined
      ? {}
      : { timeoutMs: parseDuration(values.timeout, '--timeout') }),
  };
}

/** The output settings of the shared flags. */
export function terminalSettingsFrom(values: SharedValues): TerminalSettings {
  return { json: values.json === true, noColor: values['no-color'] === true };
}
