/**
 * The backend's API, one route per thing the page does, each over the connection the page names.
 * Answers are JSON; streams (a streamed message, a subscription, the live feed, a check run) are
 * NDJSON, one line per event. A failed call answers `{ failure }` with the message the `tandem`
 * command would print: 400 for a request that is not valid, 409 for a connection this run does
 * not hold, 502 when the agent (or the way to it) failed.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { ListTasksRequest, StreamResponse, TaskState } from '../index.js';
import { enumDescriptors } from '../codecs.js';
import type { AgentConnection } from './agent-connection.js';
import type { CheckBinding, CheckLoader } from './check-runner.js';
import { composerMessage } from './composer-message.js';
import type { CheckLine, FailureView, LiveLine, SessionView, StreamLine } from './inspector-api.js';
import { InspectorInputError, UnknownConnectionError } from './inspector-errors.js';
import type { InspectorSession } from './inspector-session.js';
import {
  optionalInteger,
  optionalString,
  readJsonBody,
  stringField,
  type JsonObject,
} from './json-body.js';
import { NdjsonWriter, relayStream } from './stream-relay.js';

/** What the routes need besides the request. */
export interface ApiContext {
  readonly session: InspectorSession;
  readonly describe: (error: unknown) => FailureView;
  readonly loadCheck: CheckLoader | undefined;
}

/** The states a ListTasks filter may name (every state but UNSPECIFIED). */
const TASK_STATES: readonly string[] =
  enumDescriptors.TaskState?.values.filter((state) => state !== 'TASK_STATE_UNSPECIFIED') ?? [];

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(JSON.stringify(value ?? null));
}

function statusOf(error: unknown): number {
  if (error instanceof InspectorInputError) return 400;
  if (error instanceof UnknownConnectionError) return 409;
  return 502;
}

/** The connection the body names, with a client (an interface of its card fits). */
function clientOf(context: ApiContext, body: JsonObject) {
  const connection: AgentConnection = context.session.connection(stringField(body, 'connectionId'));
  if (connection.client === undefined) {
    throw new InspectorInputError(
      connection.view.failure?.message ?? 'No interface of this agent can be used: connect again',
    );
  }
  return { connection, client: connection.client };
}

/** An abort signal that fires when the page closes the request. */
function pageSignal(request: IncomingMessage, response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  request.once('aborted', () => controller.abort());
  return controller.signal;
}

/** Relays a stream of the agent to the page until it ends or the page leaves. */
function relay(
  context: ApiContext,
  connection: AgentConnection,
  exchange: { request: IncomingMessage; response: ServerResponse },
  open: (signal: AbortSignal) => AsyncIterable<StreamResponse>,
  first: readonly StreamLine[] = [],
): Promise<void> {
  return relayStream({
    writer: new NdjsonWriter(exchange.response),
    ids: connection.ids,
    signal: pageSignal(exchange.request, exchange.response),
    describe: context.describe,
    first,
    open,
  });
}

/** `GET /api/live`: wire entries and push deliveries as they happen. */
function live(context: ApiContext, request: IncomingMessage, response: ServerResponse): void {
  const writer = new NdjsonWriter(response);
  const write = (line: LiveLine): void => writer.write(line);
  const stopWire = context.session.log.subscribe((entry) => write({ kind: 'wire', entry }));
  const stopPush = context.session.push.subscribe((delivery) => write({ kind: 'push', delivery }));
  write({ kind: 'ready' });
  response.once('close', () => {
    stopWire();
    stopPush();
  });
  request.resume();
}

function sessionView(context: ApiContext): SessionView {
  return {
    connection: context.session.current()?.view ?? null,
    wire: context.session.log.entries(),
    deliveries: context.session.push.deliveries(),
    checkAvailable: context.loadCheck !== undefined,
  };
}

function listRequestOf(body: JsonObject): ListTasksRequest {
  const status = optionalString(body, 'status');
  if (status !== undefined && !TASK_STATES.includes(status)) {
    throw new InspectorInputError(`status must be one of ${TASK_STATES.join(', ')}; got ${status}`);
  }
  const contextId = optionalString(body, 'contextId');
  const pageToken = optionalString(body, 'pageToken');
  const pageSize = optionalInteger(body, 'pageSize', 1, 100);
  return {
    ...(contextId === undefined ? {} : { contextId }),
    ...(status === undefined ? {} : { status: status as TaskState }),
    ...(pageToken === undefined ? {} : { pageToken }),
    ...(pageSize === undefined ? {} : { pageSize }),
    includeArtifacts: true,
  };
}

async function runCheck(
  context: ApiContext,
  body: JsonObject,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const connection = context.session.connection(stringField(body, 'connectionId'));
  if (context.loadCheck === undefined) {
    throw new InspectorInputError('tandem check is not part of this build of the inspector');
  }
  const level = optionalString(body, 'level');
  if (level !== undefined && !['must', 'should', 'may'].includes(level)) {
    throw new InspectorInputError(`level must be must, should or may; got ${level}`);
  }
  const { checkAgent, areas } = await context.loadCheck();
  const signal = pageSignal(request, response);
  const writer = new NdjsonWriter(response);
  const write = (line: CheckLine): void => writer.write(line);
  const { reach } = connection;
  const bindings = reach.bindings?.filter((b): b is CheckBinding =>
    ['JSONRPC', 'HTTP+JSON', 'GRPC'].includes(b),
  );
  try {
    const report = await checkAgent(reach.url, {
      ...(bindings === undefined ? {} : { bindings }),
      ...(reach.auth === undefined ? {} : { auth: reach.auth }),
      ...(level === undefined ? {} : { level: level as 'must' | 'should' | 'may' }),
      headers: reach.headers,
      safe: body.safe === true,
      signal,
      onPlan: ({ total }) => write({ kind: 'plan', areas, total }),
      onCheck: (result) => write({ kind: 'result', result: mask(connection, result) }),
    });
    write({
      kind: 'report',
      summary: report.summary,
      versions: report.versions,
      bindings: report.bindings,
    });
  } catch (error) {
    if (!signal.aborted) write({ kind: 'error', failure: context.describe(error) });
  } finally {
    writer.end();
  }
}

/** A value with the connection's secrets masked wherever they appear. */
function mask<T>(connection: AgentConnection, value: T): T {
  return JSON.parse(connection.mask.text(JSON.stringify(value))) as T;
}

/** Handles `/api/<route>`; answers 404 for a route it does not know. */
export async function handleApi(
  route: string,
  request: IncomingMessage,
  response: ServerResponse,
  context: ApiContext,
): Promise<void> {
  try {
    if (request.method === 'GET') {
      if (route === 'session') return sendJson(response, 200, sessionView(context));
      if (route === 'live') return live(context, request, response);
      return sendJson(response, 404, { failure: notFound(route) });
    }
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'GET, POST' });
      response.end();
      return;
    }
    const body = await readJsonBody(request);
    await post(route, body, request, response, context);
  } catch (error) {
    if (response.headersSent) {
      response.end();
      return;
    }
    sendJson(response, statusOf(error), { failure: context.describe(error) });
  }
}

function notFound(route: string): FailureView {
  return { type: 'NotFound', message: `The inspector has no API route ${route}`, exitCode: 2 };
}

async function post(
  route: string,
  body: JsonObject,
  request: IncomingMessage,
  response: ServerResponse,
  context: ApiContext,
): Promise<void> {
  switch (route) {
    case 'connect': {
      const connection = await context.session.connect(body as never);
      return sendJson(response, 200, connection.view);
    }
    case 'extended-card': {
      const { client } = clientOf(context, body);
      return sendJson(response, 200, await client.getExtendedAgentCard());
    }
    case 'send': {
      const { connection, client } = clientOf(context, body);
      const message = composerMessage(body.parts, {
        taskId: optionalString(body, 'taskId'),
        contextId: optionalString(body, 'contextId'),
      });
      const configuration = body.returnImmediately === true ? { returnImmediately: true } : {};
      if (body.stream !== true) {
        const answer = await client.sendMessage({ message, configuration });
        return sendJson(response, 200, { ...answer, sent: message });
      }
      return relay(
        context,
        connection,
        { request, response },
        (signal) => client.sendStreamingMessage({ message, configuration }, { signal }),
        [{ kind: 'sent', message }],
      );
    }
    case 'tasks/list': {
      const { client } = clientOf(context, body);
      return sendJson(response, 200, await client.listTasks(listRequestOf(body)));
    }
    case 'tasks/get': {
      const { client } = clientOf(context, body);
      const historyLength = optionalInteger(body, 'historyLength', 0, 10_000);
      return sendJson(
        response,
        200,
        await client.getTask({
          id: stringField(body, 'id'),
          ...(historyLength === undefined ? {} : { historyLength }),
        }),
      );
    }
    case 'tasks/cancel': {
      const { client } = clientOf(context, body);
      return sendJson(response, 200, await client.cancelTask({ id: stringField(body, 'id') }));
    }
    case 'tasks/subscribe': {
      const { connection, client } = clientOf(context, body);
      const id = stringField(body, 'id');
      const lastEventId = optionalString(body, 'lastEventId');
      if (lastEventId !== undefined && !/^\d{1,15}$/.test(lastEventId)) {
        // Tandem's ids are sequence numbers; other agents' may not be, so any text is sent.
        if (/[\r\n]/.test(lastEventId))
          throw new InspectorInputError('lastEventId must be one line');
      }
      return relay(context, connection, { request, response }, (signal) =>
        client.subscribeToTask(
          { id },
          { signal, ...(lastEventId === undefined ? {} : { lastEventId }) },
        ),
      );
    }
    case 'push/create': {
      const { connection, client } = clientOf(context, body);
      const taskId = stringField(body, 'taskId');
      const url = optionalString(body, 'url') ?? connection.view.receiverUrl;
      if (!URL.canParse(url)) throw new InspectorInputError(`url ${url} is not a URL`);
      const token = optionalString(body, 'token') ?? randomBytes(18).toString('base64url');
      context.session.push.expectToken(token);
      connection.mask.addSecret(token);
      const created = await client.createTaskPushNotificationConfig({ taskId, url, token });
      return sendJson(response, 200, mask(connection, created));
    }
    case 'push/list': {
      const { connection, client } = clientOf(context, body);
      const configs = await client.listTaskPushNotificationConfigs({
        taskId: stringField(body, 'taskId'),
      });
      return sendJson(response, 200, mask(connection, configs));
    }
    case 'push/delete': {
      const { client } = clientOf(context, body);
      await client.deleteTaskPushNotificationConfig({
        taskId: stringField(body, 'taskId'),
        id: stringField(body, 'id'),
      });
      return sendJson(response, 200, {});
    }
    case 'check':
      return runCheck(context, body, request, response);
    default:
      return sendJson(response, 404, { failure: notFound(route) });
  }
}
