/**
 * The names of the three standard protocol bindings (spec 5, 9-11), exactly as agent cards write
 * them in `AgentInterface.protocolBinding`. Custom bindings use a URI instead (spec 5.8).
 */

/** JSON-RPC 2.0 over HTTP (spec 9). */
export const JSONRPC_BINDING = 'JSONRPC';
/** HTTP+JSON/REST (spec 11). */
export const HTTP_JSON_BINDING = 'HTTP+JSON';
/** gRPC over HTTP/2 (spec 10). */
export const GRPC_BINDING = 'GRPC';
