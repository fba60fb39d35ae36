/**
 * What is specific to the gRPC binding (spec 10), on a real gRPC server on loopback: status codes
 * and their `google.rpc.Status` details, metadata (service parameters, credentials, activated
 * extensions), routing several agents by tenant, limits, health checking and server reflection,
 * a client that cancels its stream, and Tandem's client over gRPC decoding the same typed errors.
 * The behaviour suite (test/e2e) runs every operation over gRPC besides.
 */

import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcMethodOf } from '../../../src/bindings/grpc/grpc-codec.js';
import {
  decodeStatus,
  GrpcCode,
  STATUS_DETAILS_KEY,
} from '../../../src/bindings/grpc/grpc-status.js';
import { GrpcStatusError } from '../../../src/bindings/grpc/grpc-client-transport.js';
import { createClient } from '../../../src/client.js';
import {
  ERROR_INFO_TYPE,
  TaskNotFoundError,
  VersionNotSupportedError,
  type ErrorInfoDetail,
} from '../../../src/index.js';
import {
  CredentialList,
  bearerAuthentication,
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  type A2ANodeServer,
  type A2ARequestHandler,
  type EventStream,
} from '../../../src/server.js';
import { MemoryTaskStore } from '../../../src/stores.js';
import { createGrpcServer, type A2AGrpcServer } from '../../../src/server-grpc.js';
import { rejection } from '../../support/a2a-errors.js';
import {
  extensionAgent,
  OPTIONAL_EXTENSION,
  REQUIRED_EXTENSION,
  testAgent,
} from '../../support/agents.js';
import { GrpcDriver, serviceMetadata } from '../../support/drivers/grpc-driver.js';
import { fetchCard, interfaceOf } from '../../support/drivers/bindings.js';
import { send } from '../../support/messages.js';
import { deferred } from '../../support/sync.js';

const identity = (value: Buffer): Buffer => value;
const TOKEN = 'grpc-test-token-0123456789abcdef';

/** A raw unary call: the status (code, details, trailers) or the decoded answer. */
function rawUnary(
  address: string,
  path: string,
  body: Buffer,
  metadata: Metadata,
): Promise<{ error: ServiceError | null; response: Buffer | undefined; headers: Metadata }> {
  const client = new Client(address, credentials.createInsecure());
  return new Promise((resolve) => {
    let headers = new Metadata();
    const call = client.makeUnaryRequest(
      path,
      identity,
      identity,
      body,
      metadata,
      (error, response) => {
        client.close();
        resolve({ error, response, headers });
      },
    );
    call.on('metadata', (m: Metadata) => {
      headers = m;
    });
  });
}

function errorInfoOf(error: ServiceError): ErrorInfoDetail | undefined {
  const bytes = error.metadata.get(STATUS_DETAILS_KEY)[0];
  if (!(bytes instanceof Buffer)) return undefined;
  return decodeStatus(bytes).details.find(
    (d): d is ErrorInfoDetail => d['@type'] === ERROR_INFO_TYPE,
  );
}

function encode(operation: 'GetTask' | 'SendMessage' | 'ListTasks', request: object): Buffer {
  return Buffer.from(grpcMethodOf(operation).request.encode(request));
}

describe('gRPC binding', () => {
  const runtime = createTaskRuntime({ store: new MemoryTaskStore() });
  let grpc: A2AGrpcServer;
  let http: A2ANodeServer;
  let address: string;
  let httpUrl: string;
  let subscriptionReleased = deferred();
  let handlers: A2ARequestHandler[];

  beforeAll(async () => {
    await runtime.start();
    const base = createRequestHandler({ agent: testAgent, runtime, agentName: 'grpc-a' });
    // Records when the server releases a subscription (the client went away).
    const subscribeToTask = async (
      ...args: Parameters<A2ARequestHandler['subscribeToTask']>
    ): Promise<EventStream> => {
      const events = await base.subscribeToTask(...args);
      const iterator = events[Symbol.asyncIterator]();
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => iterator.next(),
          return: async () => {
            subscriptionReleased.resolve();
            return (await iterator.return?.()) ?? { done: true, value: undefined };
          },
        }),
      };
    };
    const watched = new Proxy(base, {
      get(target, property) {
        if (property === 'subscribeToTask') return subscribeToTask;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function'
          ? (value as (...a: unknown[]) => unknown).bind(target)
          : value;
      },
    });
    handlers = [
      watched,
      createRequestHandler({ agent: extensionAgent, runtime, agentName: 'grpc-ext' }),
      createRequestHandler({ agent: testAgent, runtime, agentName: 'grpc-limited' }),
    ];
    const mounts = [
      { path: '/agents/a', handler: handlers[0] as A2ARequestHandler },
      { path: '/agents/ext', handler: handlers[1] as A2ARequestHandler },
      {
        path: '/agents/limited',
        handler: handlers[2] as A2ARequestHandler,
        limits: { requestsPerMinute: 2 },
      },
    ];
    grpc = createGrpcServer({ agents: mounts });
    ({ address } = await grpc.listen());
    http = createNodeServer({
      agents: mounts.map((m) => ({ ...m, interfaces: grpc.interfacesOf(m.path) })),
    });
    ({ url: httpUrl } = await http.listen());
  });

  afterAll(async () => {
    await Promise.all([grpc.shutdown({ deadlineMs: 500 }), http.shutdown({ deadlineMs: 500 })]);
    await runtime.close();
  });

  it('lists a bare host:port GRPC interface with the routing tenant of each agent', async () => {
    const card = await fetchCard(`${httpUrl}/agents/ext`);
    expect(interfaceOf(card, 'grpc')).toEqual({
      url: address,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      tenant: 'agents/ext',
    });
  });

  it('answers an unknown task NOT_FOUND with ErrorInfo TASK_NOT_FOUND in grpc-status-details-bin', async () => {
    const metadata = serviceMetadata({});
    const { error } = await rawUnary(
      address,
      grpcMethodOf('GetTask').path,
      encode('GetTask', { tenant: 'agents/a', id: crypto.randomUUID() }),
      metadata,
    );
    expect(error?.code).toBe(status.NOT_FOUND);
    expect(error === null ? undefined : errorInfoOf(error)).toMatchObject({
      reason: 'TASK_NOT_FOUND',
      domain: 'a2a-protocol.org',
    });
  });

  it('answers an invalid request INVALID_ARGUMENT with a BadRequest naming each field', async () => {
    const { error } = await rawUnary(
      address,
      grpcMethodOf('SendMessage').path,
      encode('SendMessage', { tenant: 'agents/a', message: { messageId: 'm', role: 'ROLE_USER' } }),
      serviceMetadata({}),
    );
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
    const bytes = error?.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer;
    const details = decodeStatus(bytes).details;
    expect(details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [expect.objectContaining({ field: 'message.parts' })],
    });
  });

  it('answers bytes that are no protobuf message INVALID_ARGUMENT', async () => {
    const { error } = await rawUnary(
      address,
      grpcMethodOf('GetTask').path,
      Buffer.from([0x12, 0x7f, 0x01]),
      serviceMetadata({}),
    );
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
  });

  it('reads a2a-version from metadata: none is 0.3, refused FAILED_PRECONDITION', async () => {
    const driver = new GrpcDriver(address, {}, 'agents/a');
    const reply = await driver.call('GetTask', { id: crypto.randomUUID() }, { version: null });
    expect(reply.error).toBeInstanceOf(VersionNotSupportedError);
    expect(reply.error?.grpcStatus).toBe('FAILED_PRECONDITION');
  });

  it('reads a2a-extensions from metadata and answers the activated ones in response metadata', async () => {
    const driver = new GrpcDriver(address, {}, 'agents/ext');
    const reply = await driver.call('SendMessage', send('hi'), {
      extensions: [REQUIRED_EXTENSION, OPTIONAL_EXTENSION],
    });
    expect(reply.error).toBeUndefined();
    expect(reply.activatedExtensions).toEqual([REQUIRED_EXTENSION, OPTIONAL_EXTENSION]);
    const refused = await driver.call('SendMessage', send('hi'));
    expect(refused.error?.reason).toBe('EXTENSION_SUPPORT_REQUIRED');
  });

  it('refuses a tenant that routes to no agent, naming the tenant', async () => {
    const driver = new GrpcDriver(address, {}, 'agents/nobody');
    const reply = await driver.call('GetTask', { id: crypto.randomUUID() });
    expect(reply.error?.type).toBe('InvalidParamsError');
    expect(reply.error?.message).toContain('tenant');
  });

  it('answers a caller over its limit RESOURCE_EXHAUSTED with retry-after', async () => {
    const metadata = serviceMetadata({});
    const body = encode('ListTasks', { tenant: 'agents/limited' });
    const path = grpcMethodOf('ListTasks').path;
    let last: ServiceError | null = null;
    for (let i = 0; i < 4 && last === null; i++) {
      last = (await rawUnary(address, path, body, metadata)).error;
    }
    expect(last?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(last?.metadata.get('retry-after')[0]).toMatch(/^\d+$/);
  });

  it('releases the server subscription when the client cancels its stream; the task goes on', async () => {
    subscriptionReleased = deferred();
    const driver = new GrpcDriver(address, {}, 'agents/a');
    const task = await driver.sendTask(send('wait', {}, { returnImmediately: true }));
    const stream = await driver.subscribeToTask({ id: task.id });
    expect((await stream.next())?.response.task?.id).toBe(task.id);
    stream.close();
    await subscriptionReleased.promise;
    expect((await driver.getTask({ id: task.id })).status.state).toBe('TASK_STATE_WORKING');
    await driver.cancelTask({ id: task.id });
  });

  it('serves grpc.health.v1.Health: SERVING for the server and the A2A service', async () => {
    const check = (service: string) =>
      rawUnary(
        address,
        '/grpc.health.v1.Health/Check',
        // HealthCheckRequest { string service = 1; }
        Buffer.concat([Buffer.from([0x0a, service.length]), Buffer.from(service)]),
        new Metadata(),
      );
    for (const service of ['', 'lf.a2a.v1.A2AService']) {
      const { error, response } = await check(service);
      expect(error).toBeNull();
      // HealthCheckResponse { ServingStatus status = 1; } SERVING = 1
      expect([...(response ?? Buffer.alloc(0))]).toEqual([0x08, 0x01]);
    }
    expect((await check('nope.Service')).error?.code).toBe(status.NOT_FOUND);
  });

  it('serves reflection: the service and the file descriptor of a2a.proto', async () => {
    const client = new Client(address, credentials.createInsecure());
    const stream = client.makeBidiStreamRequest(
      '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      identity,
      identity,
    );
    const answers: Buffer[] = [];
    const done = new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => {
        answers.push(chunk);
        if (answers.length === 3) stream.end();
      });
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    // ServerReflectionRequest { string list_services = 7; string file_containing_symbol = 4; }
    stream.write(Buffer.from([0x3a, 0x01, 0x2a]));
    const symbol = Buffer.from('lf.a2a.v1.A2AService');
    stream.write(Buffer.concat([Buffer.from([0x22, symbol.length]), symbol]));
    // string file_by_filename = 3: an import, as grpcurl asks for each one it lacks
    const imported = Buffer.from('google/api/annotations.proto');
    stream.write(Buffer.concat([Buffer.from([0x1a, imported.length]), imported]));
    await done;
    client.close();
    expect(answers[0]?.toString('latin1')).toContain('lf.a2a.v1.A2AService');
    // ServerReflectionResponse.file_descriptor_response (4) { repeated bytes file_descriptor_proto = 1 }
    const files = descriptorsIn(answers[1] ?? Buffer.alloc(0));
    const a2a = files.find((file) => file.name === 'a2a.proto');
    expect(a2a?.service[0]?.method.map((m) => m.name)).toHaveLength(11);
    const imports = descriptorsIn(answers[2] ?? Buffer.alloc(0)).map((file) => file.name);
    expect(imports).toContain('google/api/annotations.proto');
  });

  it('decodes the same typed errors in Tandem client over gRPC', async () => {
    const client = await createClient(`${httpUrl}/agents/a`, { bindings: ['GRPC'] });
    expect(client.selectedInterface.protocolBinding).toBe('GRPC');
    await rejection(client.getTask({ id: crypto.randomUUID() }), TaskNotFoundError);
    const task = await client.sendMessage(send('echo over grpc'));
    expect(task).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });
});

describe('gRPC binding with authentication', () => {
  const runtime = createTaskRuntime({ store: new MemoryTaskStore() });
  let grpc: A2AGrpcServer;
  let address: string;

  beforeAll(async () => {
    await runtime.start();
    const handler = createRequestHandler({ agent: testAgent, runtime, agentName: 'grpc-auth' });
    grpc = createGrpcServer({
      agents: [{ path: '', handler }],
      authenticate: bearerAuthentication(
        new CredentialList({ kind: 'inline', text: `ops ${TOKEN}`, label: 'test tokens' }),
      ),
    });
    ({ address } = await grpc.listen());
  });

  afterAll(async () => {
    await grpc.shutdown({ deadlineMs: 500 });
    await runtime.close();
  });

  it('refuses a call without credentials UNAUTHENTICATED with the challenge in metadata', async () => {
    const { error } = await rawUnary(
      address,
      grpcMethodOf('ListTasks').path,
      encode('ListTasks', {}),
      serviceMetadata({}),
    );
    expect(error?.code).toBe(GrpcCode.UNAUTHENTICATED);
    expect(error?.metadata.get('www-authenticate')[0]).toContain('Bearer');
    expect(error?.details).not.toContain(TOKEN);
  });

  it('accepts authorization metadata, through the same identity hook as HTTP', async () => {
    const metadata = serviceMetadata({});
    metadata.set('authorization', `Bearer ${TOKEN}`);
    const { error } = await rawUnary(
      address,
      grpcMethodOf('ListTasks').path,
      encode('ListTasks', {}),
      metadata,
    );
    expect(error).toBeNull();
  });

  it('gives Tandem client a GrpcStatusError of HTTP status 401 for the refusal', async () => {
    const node = createNodeServer({
      agents: [
        {
          path: '',
          handler: createRequestHandler({ agent: testAgent, runtime, agentName: 'grpc-auth-card' }),
          interfaces: () => [{ url: address, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
        },
      ],
    });
    const { url } = await node.listen();
    try {
      const client = await createClient(url, { bindings: ['GRPC'], retry: false });
      const error = await client.listTasks({}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(GrpcStatusError);
      expect((error as GrpcStatusError).status).toBe(401);
      expect((error as GrpcStatusError).grpcCode).toBe(GrpcCode.UNAUTHENTICATED);
    } finally {
      await node.shutdown({ deadlineMs: 200 });
    }
  });
});

/** The FileDescriptorProtos of a reflection answer (field 4, then its repeated field 1). */
function descriptorsIn(response: Buffer) {
  const files = [];
  const fields = readFields(response);
  const body = fields.find(([number]) => number === 4)?.[1];
  for (const [number, value] of readFields(body ?? Buffer.alloc(0))) {
    if (number === 1) files.push(fromBinary(FileDescriptorProtoSchema, value));
  }
  return files;
}

/** The length-delimited fields of a protobuf message, by number. */
function readFields(bytes: Buffer): [number, Buffer][] {
  const fields: [number, Buffer][] = [];
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[at++] ?? 0;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 2) {
      const length = varint();
      fields.push([key >>> 3, bytes.subarray(at, at + length)]);
      at += length;
    } else if (wire === 0) varint();
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return fields;
}
