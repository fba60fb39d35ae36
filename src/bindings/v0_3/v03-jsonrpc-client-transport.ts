/**
 * JSON-RPC 0.3, client half: the transport the client uses for an interface at protocol version
 * 0.3. It takes the same 1.0 calls as every transport and hands back the same validated 1.0
 * values and typed errors: it is the JSON-RPC transport with a 0.3 dialect — each request written
 * as its 0.3 method and params (`v03-requests.ts`), each result and event read back into 1.0
 * (`v03-results.ts`, `v03-task.ts`) and then validated like a 1.0 answer. On the wire it is what
 * 0.3 clients send: no `A2A-Version` (empty means 0.3, spec 3.6.2), extensions in
 * `X-A2A-Extensions` as well as `A2A-Extensions`.
 *
 * A 0.3 event marked `final: true` ends the stream there, as 0.3 clients read it. `ListTasks` has
 * no 0.3 JSON-RPC method: it fails with `UnsupportedOperationError` without a request.
 */

import { UnsupportedOperationError } from '../../protocol/errors.js';
import { EXTENSIONS_HEADER, VERSION_HEADER } from '../../protocol/extensions-header.js';
import type { ClientTransport, ClientTransportContext } from '../client/client-transport.js';
import {
  createJsonRpcDialectTransport,
  type JsonRpcDialect,
} from '../jsonrpc/jsonrpc-client-transport.js';
import { translate } from './translate/untranslatable.js';
import { translated } from './v03-client-read.js';
import { errorFromV03 } from './translate/v03-errors.js';
import { methodOf, requestToV03 } from './translate/v03-requests.js';
import { resultFromV03 } from './translate/v03-results.js';
import { streamEventFromV03 } from './translate/v03-task.js';

/** A2A 0.3 over the JSON-RPC transport. */
const A2A_V03_JSONRPC: JsonRpcDialect = {
  request(call) {
    const method = methodOf(call.operation);
    if (method === undefined) {
      throw new UnsupportedOperationError(
        `${call.operation} has no A2A 0.3 JSON-RPC method; this agent speaks only 0.3`,
      );
    }
    return { method, params: requestToV03(call.operation, call.message as never) };
  },
  editHeaders(headers) {
    headers.delete(VERSION_HEADER);
    const extensions = headers.get(EXTENSIONS_HEADER);
    if (extensions !== null) headers.set('X-A2A-Extensions', extensions);
  },
  errorOf: errorFromV03,
  resultOf: (operation, result, where) => translated(where, () => resultFromV03(operation, result)),
  eventOf(result, where) {
    const read = translated(where, () =>
      translate('An A2A 0.3 event', (issues) => streamEventFromV03(result, 'event', issues)),
    );
    return read === undefined ? undefined : { payload: read.event, final: read.final };
  },
};

/** Creates the JSON-RPC 0.3 transport of an interface (a `ClientTransportFactory`). */
export function createV03JsonRpcClientTransport(context: ClientTransportContext): ClientTransport {
  return createJsonRpcDialectTransport(context, A2A_V03_JSONRPC);
}
