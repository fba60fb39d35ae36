/**
 * The standard services that let tools and load balancers use a gRPC server without its proto
 * file: health checking (`grpc.health.v1.Health`, from grpc-health-check) and server reflection
 * (`grpc.reflection.v1` and `v1alpha`, from @grpc/reflection), so that `grpcurl -plaintext
 * host:port list` and `grpcurl ... lf.a2a.v1.A2AService/GetTask` work. Reflection serves the file
 * descriptors protoc-gen-es embedded in the generated code (a2a.proto and everything it
 * imports), encoded once when the server is created.
 */

import { toBinary, type DescFile } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { Server } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { A2A_SERVICE_NAME } from './grpc-codec.js';
import { file_a2a } from './generated/a2a_pb.js';

type PackageDefinition = ConstructorParameters<typeof ReflectionService>[0];

/** `file` and every file it imports, each once, dependencies first. */
function filesOf(file: DescFile, seen = new Set<string>()): DescFile[] {
  if (seen.has(file.name)) return [];
  seen.add(file.name);
  return [...file.dependencies.flatMap((dependency) => filesOf(dependency, seen)), file];
}

/**
 * The package definition @grpc/reflection reads: it only looks at the `fileDescriptorProtos` of
 * each entry, so one entry holding every file is enough.
 */
function packageDefinition(): PackageDefinition {
  const fileDescriptorProtos = filesOf(file_a2a).map((file) =>
    Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto)),
  );
  return {
    [A2A_SERVICE_NAME]: {
      format: 'Protocol Buffer 3 FileDescriptorProto',
      type: {},
      fileDescriptorProtos,
    },
  } as unknown as PackageDefinition;
}

/** The serving status of the server and of the A2A service, for health checks. */
export interface HealthStatus {
  /** Marks the server as shutting down: checks answer `NOT_SERVING`, watchers are told. */
  notServing(): void;
}

/** Adds health checking and reflection to `server`. */
export function addIntrospection(
  server: Server,
  options: { readonly health: boolean; readonly reflection: boolean },
): HealthStatus {
  let health: HealthImplementation | undefined;
  if (options.health) {
    health = new HealthImplementation({ '': 'SERVING', [A2A_SERVICE_NAME]: 'SERVING' });
    health.addToServer(server);
  }
  if (options.reflection) new ReflectionService(packageDefinition()).addToServer(server);
  return {
    notServing() {
      health?.setStatus('', 'NOT_SERVING');
      health?.setStatus(A2A_SERVICE_NAME, 'NOT_SERVING');
    },
  };
}
