/**
 * The span of one webhook delivery attempt (docs/observability.md, "Where the conventions stop"):
 * a CLIENT span named `PushNotification`, a child of the task's originating context — the call
 * that created the task, however long ago and on whichever replica — whose context goes into the
 * POST as `traceparent` (and `tracestate`), so that the receiver's work joins the
 * task's trace. Each attempt is its own span, retries included: each is a request the receiver
 * sees. The webhook URL is not an attribute (it may carry a secret); its host and port are.
 *
 * The POST runs in the span's context: an HTTP client instrumentation makes its span a child of
 * this one, whatever call happened to wake the delivery.
 */

import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { contextOfTask, type TaskTraceContext } from '../telemetry/task-trace-context.js';
import {
  ATTR_A2A_TASK_ID,
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '../telemetry/telemetry-attributes.js';
import { tandemTracer } from '../telemetry/telemetry-scope.js';
import {
  postWebhook,
  type WebhookClient,
  type WebhookOutcome,
  type WebhookRequest,
} from './webhook-post.js';

/** The name of a delivery attempt's span. Tandem's: the conventions have no push notifications. */
export const PUSH_DELIVERY_SPAN_NAME = 'PushNotification';
/** The push config delivered to (span-only). Tandem's. */
export const ATTR_A2A_PUSH_CONFIG_ID = 'a2a.push.config.id';
/** The log positions an attempt delivers, `5` or `5-7` (span-only). Tandem's. */
export const ATTR_A2A_PUSH_EVENTS = 'a2a.push.events';

/** What the span says of the delivery beside its request. */
export interface DeliveryFacts {
  readonly taskId: string;
  readonly configId: string;
  /** `5`, or `5-7` for events delivered together. */
  readonly events: string;
  readonly taskTraceContext: TaskTraceContext | undefined;
}

/**
 * The `error.type` of an attempt that failed: the HTTP status (`503`, as the client spans say an
 * HTTP failure without an A2A error), `timeout`, `canceled` (the server stopped), the socket's
 * error code (`ECONNREFUSED`), `destination_refused`, `redirect`, else `_OTHER`. Read from the
 * outcome's reason, whose forms `webhook-post.ts` makes; never the reason itself, which names
 * the destination.
 */
export function deliveryErrorType(outcome: Exclude<WebhookOutcome, { kind: 'delivered' }>): string {
  const { reason } = outcome;
  const status = /^HTTP (\d{3})$/.exec(reason);
  if (status !== null) return status[1] ?? '_OTHER';
  if (reason.startsWith('no answer within')) return 'timeout';
  if (reason.startsWith('delivery stopped')) return 'canceled';
  if (reason.startsWith('the webhook URL')) return 'destination_refused';
  if (reason.includes('redirect') || reason.includes('Location')) return 'redirect';
  const code = /^(E[A-Z0-9_]+):/.exec(reason);
  return code?.[1] ?? '_OTHER';
}

function serverOf(url: string): { address: string; port: number } {
  const parsed = new URL(url);
  const port = parsed.port !== '' ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  // IPv6 hosts come bracketed; the attribute is the address alone.
  return { address: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** {@link postWebhook} in its delivery span; never rejects. */
export async function postWebhookInSpan(
  client: WebhookClient,
  request: WebhookRequest,
  stop: AbortSignal | undefined,
  facts: DeliveryFacts,
): Promise<WebhookOutcome> {
  const parent = contextOfTask(facts.taskTraceContext);
  const { address, port } = serverOf(request.url);
  const span = tandemTracer().startSpan(
    PUSH_DELIVERY_SPAN_NAME,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_A2A_TASK_ID]: facts.taskId,
        [ATTR_A2A_PUSH_CONFIG_ID]: facts.configId,
        [ATTR_A2A_PUSH_EVENTS]: facts.events,
        'http.request.method': 'POST',
        [ATTR_SERVER_ADDRESS]: address,
        [ATTR_SERVER_PORT]: port,
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  const headers: Record<string, string> = { ...request.headers };
  propagation.inject(active, headers);
  const outcome = await context.with(active, () =>
    postWebhook(client, { ...request, headers }, stop),
  );
  if (outcome.kind === 'delivered') {
    span.setAttribute('http.response.status_code', outcome.status);
  } else {
    const type = deliveryErrorType(outcome);
    if (/^\d{3}$/.test(type)) span.setAttribute('http.response.status_code', Number(type));
    span.setAttribute(ATTR_ERROR_TYPE, type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  }
  span.end();
  return outcome;
}
