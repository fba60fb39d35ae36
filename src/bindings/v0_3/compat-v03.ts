/**
 * `compatV03()`: serve A2A 0.3 clients beside 1.0 ones (`tandem serve --compat 0.3`), on every
 * listener. JSON-RPC 0.3 on the JSON-RPC endpoint (`v03-jsonrpc-door.ts`), HTTP+JSON 0.3 under
 * `/v1/` beside each HTTP+JSON interface (`v03-rest-door.ts`), the card with the 0.3 fields beside
 * the 1.0 ones (`v03-card.ts`), also at the legacy `/.well-known/agent.json`, and on a gRPC
 * listener `a2a.v1.A2AService` beside the 1.0 service (`v03-grpc-service.ts`, loaded only then);
 * its clients' webhooks get the 0.3 Task payload (`v03-push-payloads.ts`) from a push notifier
 * given the layer.
 * Rules in docs/compat-0.3.md.
 */

import { GRPC_BINDING } from '../../protocol/protocol-bindings.js';
import type { CompatLayer } from '../server/compat-layer.js';
import { cardWithV03Fields } from './translate/v03-card.js';
import { V03_VERSION } from './translate/v03-types.js';
import { V03_PUSH_PAYLOADS } from './v03-push-payloads.js';
import { withV03JsonRpc } from './v03-jsonrpc-door.js';
import { withV03Rest } from './v03-rest-door.js';

/** The legacy well-known path of 0.2/0.3 cards. */
export const LEGACY_CARD_PATH = '/.well-known/agent.json';

/** Serves A2A 0.3 clients too; pass it as the `compat` option of the server. */
export function compatV03(): CompatLayer {
  return {
    version: V03_VERSION,
    mount: (bindings, context) => withV03Rest(withV03JsonRpc(bindings, context), context),
    cardPaths: [LEGACY_CARD_PATH],
    present: cardWithV03Fields,
    pushPayloads: V03_PUSH_PAYLOADS,
    async serviceFor(binding) {
      if (binding !== GRPC_BINDING) return undefined;
      const { v03GrpcService } = await import('./v03-grpc-service.js');
      return v03GrpcService();
    },
  };
}
