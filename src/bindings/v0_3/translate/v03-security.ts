/**
 * Security schemes and requirements between 0.3 and 1.0. 0.3 writes a scheme OpenAPI-style
 * (`{ type: 'http' as const, scheme: 'bearer' }`), 1.0 as a oneof member (`{ httpAuthSecurityScheme: {...} }`);
 * 0.3 requirements are `[{ name: [scopes] }]`, 1.0 `[{ schemes: { name: { list: [scopes] } } }]`.
 * Because the member names differ, one scheme object can carry both shapes, which is how the
 * card served with `--compat 0.3` reads well for clients of either version.
 *
 * What does not map: 1.0's device code flow has no 0.3 flow (left out of the 0.3 shape, kept in the
 * 1.0 one); a 0.3 scheme with several OAuth flows keeps the first of authorizationCode,
 * clientCredentials, deviceCode, password, implicit in 1.0, which holds one.
 */

import type { JsonValue } from '../../../protocol/json.js';
import type {
  OAuthFlows,
  SecurityRequirement,
  SecurityScheme,
} from '../../../protocol/generated/types.js';
import { isObject, type Issues } from './untranslatable.js';
import { defined, join, readString, typeName } from './v03-fields.js';
import type { V03Security, V03SecurityScheme } from './v03-types.js';

const FLOW_ORDER = ['authorizationCode', 'clientCredentials', 'deviceCode', 'password', 'implicit'];

/** The 0.3 shape of a 1.0 scheme. */
export function schemeToV03(scheme: SecurityScheme): V03SecurityScheme {
  if (scheme.apiKeySecurityScheme !== undefined) {
    const s = scheme.apiKeySecurityScheme;
    return defined({
      type: 'apiKey' as const,
      in: s.location,
      name: s.name,
      description: s.description,
    });
  }
  if (scheme.httpAuthSecurityScheme !== undefined) {
    const s = scheme.httpAuthSecurityScheme;
    return defined({
      type: 'http' as const,
      scheme: s.scheme,
      bearerFormat: s.bearerFormat,
      description: s.description,
    });
  }
  if (scheme.oauth2SecurityScheme !== undefined) {
    const s = scheme.oauth2SecurityScheme;
    const flows: { [flow: string]: { [key: string]: JsonValue } } = {};
    for (const [name, flow] of Object.entries(s.flows)) {
      if (name !== 'deviceCode' && flow !== undefined) {
        flows[name] = flow as { [key: string]: JsonValue };
      }
    }
    return defined({
      type: 'oauth2' as const,
      flows,
      oauth2MetadataUrl: s.oauth2MetadataUrl,
      description: s.description,
    });
  }
  if (scheme.openIdConnectSecurityScheme !== undefined) {
    const s = scheme.openIdConnectSecurityScheme;
    return defined({
      type: 'openIdConnect' as const,
      openIdConnectUrl: s.openIdConnectUrl,
      description: s.description,
    });
  }
  return defined({
    type: 'mutualTLS' as const,
    description: scheme.mtlsSecurityScheme.description,
  });
}

/** A 0.3 scheme (JSON) in 1.0 shape; a scheme already in 1.0 shape is kept. */
export function schemeFromV03(
  value: unknown,
  path: string,
  issues: Issues,
): SecurityScheme | undefined {
  if (!isObject(value)) {
    issues.add(path, `must be a security scheme object, got ${typeName(value)}`);
    return undefined;
  }
  const description = readString(value, 'description', path, issues);
  switch (value.type) {
    case 'apiKey': {
      const location = readString(value, 'in', path, issues, true);
      const name = readString(value, 'name', path, issues, true);
      if (location === undefined || name === undefined) return undefined;
      return { apiKeySecurityScheme: defined({ location, name, description }) };
    }
    case 'http': {
      const scheme = readString(value, 'scheme', path, issues, true);
      if (scheme === undefined) return undefined;
      const bearerFormat = readString(value, 'bearerFormat', path, issues);
      return { httpAuthSecurityScheme: defined({ scheme, bearerFormat, description }) };
    }
    case 'oauth2': {
      const flows = value.flows;
      const name = isObject(flows) ? FLOW_ORDER.find((flow) => isObject(flows[flow])) : undefined;
      if (name === undefined || !isObject(flows)) {
        issues.add(join(path, 'flows'), 'must hold at least one OAuth flow');
        return undefined;
      }
      const oauth2MetadataUrl = readString(value, 'oauth2MetadataUrl', path, issues);
      return {
        oauth2SecurityScheme: defined({
          flows: { [name]: flows[name] } as unknown as OAuthFlows,
          oauth2MetadataUrl,
          description,
        }),
      };
    }
    case 'openIdConnect': {
      const openIdConnectUrl = readString(value, 'openIdConnectUrl', path, issues, true);
      if (openIdConnectUrl === undefined) return undefined;
      return { openIdConnectSecurityScheme: defined({ openIdConnectUrl, description }) };
    }
    case 'mutualTLS':
      return { mtlsSecurityScheme: defined({ description }) };
    default:
      // A scheme already in the 1.0 shape (a card serving both) reads as it is.
      if (Object.keys(value).some((key) => key.endsWith('SecurityScheme'))) {
        return value as unknown as SecurityScheme;
      }
      issues.add(
        join(path, 'type'),
        `must be apiKey, http, oauth2, openIdConnect or mutualTLS, got ${typeName(value.type)}`,
      );
      return undefined;
  }
}

/** 1.0 requirements in 0.3 form. */
export function securityToV03(requirements: readonly SecurityRequirement[]): V03Security {
  return requirements.map((requirement) => {
    const out: { [scheme: string]: string[] } = {};
    for (const [name, scopes] of Object.entries(requirement.schemes ?? {})) {
      out[name] = [...(scopes.list ?? [])];
    }
    return out;
  });
}

/** 0.3 requirements (JSON) in 1.0 form. */
export function securityFromV03(
  value: unknown,
  path: string,
  issues: Issues,
): SecurityRequirement[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    issues.add(path, 'must be an array of requirement objects');
    return undefined;
  }
  return value.flatMap((entry: unknown, index) => {
    if (!isObject(entry)) {
      issues.add(`${path}[${index}]`, 'must be an object of scheme names to scopes');
      return [];
    }
    const schemes: { [name: string]: { list: string[] } } = {};
    for (const [name, scopes] of Object.entries(entry)) {
      if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string')) {
        issues.add(`${path}[${index}].${name}`, 'must be an array of scope strings');
        continue;
      }
      schemes[name] = { list: [...(scopes as string[])] };
    }
    return [{ schemes }];
  });
}
