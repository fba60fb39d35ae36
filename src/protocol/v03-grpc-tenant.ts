/**
 * How an A2A 0.3 gRPC call names its agent on a port shared by several. A 1.0 request carries
 * the `tenant` of the interface it uses (spec 8.3.2, 4.4.6), which routes it; the 0.3 messages
 * have no such field, so Tandem's 0.3 gRPC client sends the interface's tenant as this metadata
 * instead, and the server routes a 0.3 call by it as it routes a 1.0 call by its field. A 0.3
 * client that sends none reaches the agent that takes calls without a tenant (the root's, or the
 * first).
 */
export const V03_GRPC_TENANT_METADATA = 'a2a-tenant';
