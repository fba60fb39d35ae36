/**
 * Several ways of authenticating at once (`--auth bearer --auth jwt`): a call is authenticated by
 * the first that accepts it, and the card declares each as an alternative requirement.
 */

import {
  AuthenticationError,
  type Authenticator,
  type ServerAuthentication,
} from '../bindings/server/authentication.js';
import type { SecurityRequirement, SecurityScheme } from '../protocol/generated/types.js';
import type { Principal } from '../runtime/call-context.js';

export type { ServerAuthentication };

/**
 * Any one of `methods` authenticates. A refusal names the challenges of every method; its status
 * and message are those of a method that recognised the caller but refused it (403, e.g. a
 * missing scope), else of a method whose credentials the request carried (so a wrong token is not
 * reported as a missing API key), else of the first.
 */
export function anyOf(...methods: readonly ServerAuthentication[]): ServerAuthentication {
  if (methods.length === 1 && methods[0] !== undefined) return methods[0];
  const securitySchemes: Record<string, SecurityScheme> = {};
  const securityRequirements: SecurityRequirement[] = [];
  for (const method of methods) {
    Object.assign(securitySchemes, method.securitySchemes);
    securityRequirements.push(...method.securityRequirements);
  }
  const authenticate: Authenticator = async (request) => {
    const refusals: AuthenticationError[] = [];
    for (const method of methods) {
      let verdict: Principal | AuthenticationError;
      try {
        verdict = await method.authenticate(request);
      } catch (error) {
        if (!(error instanceof AuthenticationError)) throw error;
        verdict = error;
      }
      if (!(verdict instanceof AuthenticationError)) return verdict;
      refusals.push(verdict);
    }
    // A 403 means a method recognised the caller, who lacks what it needs (a scope): that is the
    // answer, not another method's "invalid token" for the same credentials.
    const presented =
      refusals.find((refusal) => refusal.status === 403) ??
      refusals.find((refusal) => refusal.credentialsPresented) ??
      refusals[0];
    return new AuthenticationError(presented?.message ?? 'Authentication is required', {
      status: presented?.status ?? 401,
      challenges: refusals.flatMap((refusal) => refusal.challenges),
      credentialsPresented: presented?.credentialsPresented ?? false,
    });
  };
  return { authenticate, securitySchemes, securityRequirements };
}
