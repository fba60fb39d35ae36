/**
 * `createRequestHandler` as `tandem/server` exports it: the runtime's, with a new
 * `MemoryTaskStore` as the store when neither a runtime nor a store is given. The default is
 * supplied here, where the server is composed from its parts, so that the runtime depends on the
 * store seam alone and never on a store.
 */

import type { A2ARequestHandler } from '../runtime/request-handler.js';
import {
  createRuntimeRequestHandler,
  type RequestHandlerOptions,
} from '../runtime/runtime-request-handler.js';
import { MemoryTaskStore } from '../stores/memory/memory-task-store.js';

const memoryStore = (): MemoryTaskStore => new MemoryTaskStore();

/**
 * Creates the request handler of one agent: over `options.runtime` (shared by the agents of one
 * store), over a runtime of its own on `options.store`, or, with neither, on a new in-memory
 * store.
 */
export function createRequestHandler(options: RequestHandlerOptions): A2ARequestHandler {
  return createRuntimeRequestHandler(options, memoryStore);
}
