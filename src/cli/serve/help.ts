/** `tandem serve --help`: its own flags, then each group's section (`options.ts`). */

import { demoAgentNames } from '../../agents/index.js';
import { SERVE_GROUPS } from './options.js';
import { PREFERRED_BINDING_HELP } from './preferred-binding.js';

/** The help text. */
export const SERVE_HELP = `Usage: tandem serve [options]

Serves demo agents over A2A (JSON-RPC and HTTP+JSON bindings, gRPC with --grpc-port) and
prints where to find them.

Options:
  --port <n>              Port to listen on (default 41241, env PORT)
  --host <host>           Address to bind (default 127.0.0.1, env TANDEM_HOST)
  --public-url <url>      URL clients use to reach this server, for agent cards (env TANDEM_PUBLIC_URL)
  --agent <name>          Agent to serve; repeat for several (default: all of ${demoAgentNames.join(', ')};
                          also chat and orchestrator, configured below)
  --store <store>         memory | sqlite:PATH | postgres://...[?schema=NAME]
                          (default sqlite:./tandem.db, env TANDEM_STORE)
  --log-level <level>     trace | debug | info | warn | error | silent (default info, env TANDEM_LOG_LEVEL)
  --retention <duration>  Purge tasks finished longer ago than this, at least 1m, e.g. 7d, 12h
                          (default: keep forever)
  --orphan-timeout <dur>  Fail tasks whose server died after this long, at least 1s (default 30s;
                          replicas only)
  --shutdown-timeout <d>  Time running work may take to finish on SIGTERM (default 10s)
  --heartbeat <duration>  SSE heartbeat interval on idle streams, at least 1s (default 15s)
${PREFERRED_BINDING_HELP}
  -h, --help              Show this help

Durations take a unit: ms, s, m, h or d (500ms, 30s, 5m, 12h, 7d); a bare number is refused.

${SERVE_GROUPS.map((group) => group.help).join('\n\n')}

With one agent its card is at /.well-known/agent-card.json; with several, each agent lives
under /agents/<name>/ and the first one's card is also served at the root.`;
