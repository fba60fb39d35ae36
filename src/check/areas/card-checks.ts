/**
 * Discovery and card (spec 8, 4.4; 0.3 section 5), once for the agent: where the card is
 * served and how, whether it is JSON, valid against `AgentCard` (every violation with its field
 * path, from the protocol's validator; a 0.3 card through its translation), its protocol
 * versions, interfaces, security schemes and caching headers. Signatures are `card-signature.ts`.
 */

import type { FieldViolation } from '../../protocol/error-details.js';
import { parseProtocolVersion } from '../../protocol/version.js';
import type { AgentCheck } from '../check-implementation.js';
import type { AgentCheckContext } from '../check-context.js';
import { sendHttp } from '../probe/http-probe.js';
import { fail, pass, skip, type Verdict } from '../verdict.js';
import { inlineExcerpt } from '../wire/wire-exchange.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Violations that say a REQUIRED field is missing (spec 5.7), as the validator words them. */
function isMissing(violation: FieldViolation): boolean {
  return /^(is required|must not be empty|must contain at least one element)/.test(
    violation.description,
  );
}

function listViolations(violations: readonly FieldViolation[]): string {
  const shown = violations
    .slice(0, 6)
    .map((v) => `${v.field}: ${v.description}`)
    .join('; ');
  return violations.length > 6 ? `${shown} (and ${violations.length - 6} more)` : shown;
}

function noCard(context: AgentCheckContext): Verdict {
  const last = context.discovered.fetches[context.discovered.fetches.length - 1];
  return fail(
    `no card: ${last === undefined ? 'nothing was fetched' : `GET ${last.url} answered HTTP ${last.answer.status}`}`,
    last?.exchange,
  );
}

const wellKnown: AgentCheck = {
  id: 'card.well-known',
  async run(context) {
    const { discovered } = context;
    const found = discovered.found;
    if (found === undefined) return noCard(context);
    if (found.url === discovered.wellKnownUrl)
      return pass(`served at ${found.url}`, found.exchange);
    if (found.url.endsWith('/.well-known/agent.json')) {
      return fail(
        `the card is only at ${found.url}, the location of A2A 0.2; serve it at ${discovered.wellKnownUrl}`,
        found.exchange,
      );
    }
    const sent = await sendHttp(context.environment, {
      method: 'GET',
      url: discovered.wellKnownUrl,
      headers: [['Accept', 'application/json'], ...context.environment.headers],
    });
    if (!('failure' in sent) && sent.answer.status === 200) {
      return pass(`also served at ${discovered.wellKnownUrl}`, sent.exchange);
    }
    return fail(
      `the card was given at ${found.url}, but ${discovered.wellKnownUrl} does not serve it (${'failure' in sent ? sent.failure : `HTTP ${sent.answer.status}`})`,
      sent.exchange,
    );
  },
};

const contentType: AgentCheck = {
  id: 'card.content-type',
  run(context) {
    const found = context.discovered.found;
    if (found === undefined) return noCard(context);
    const type = found.answer.mediaType;
    return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type)
      ? pass(`served as ${type}`, found.exchange)
      : fail(`served as ${type || 'no content type'}, not application/json`, found.exchange);
  },
};

const json: AgentCheck = {
  id: 'card.json',
  run(context) {
    const found = context.discovered.found;
    if (found === undefined) return noCard(context);
    return isRecord(context.discovered.json)
      ? pass('the body is a JSON object', found.exchange)
      : fail(`the body is not a JSON object: ${inlineExcerpt(found.answer.text)}`, found.exchange);
  },
};

/** The 0.3 card's REQUIRED fields (the 0.3 JSON schema, and `preferredTransport` by 5.6.1). */
const V03_REQUIRED = [
  'capabilities',
  'defaultInputModes',
  'defaultOutputModes',
  'description',
  'name',
  'protocolVersion',
  'skills',
  'url',
  'version',
  'preferredTransport',
] as const;

function v03Missing(card: Json): string[] {
  const missing: string[] = V03_REQUIRED.filter(
    (field) => card[field] === undefined || card[field] === null,
  );
  (Array.isArray(card.skills) ? card.skills : []).forEach((skill: unknown, index) => {
    if (!isRecord(skill)) return;
    for (const field of ['id', 'name', 'description', 'tags']) {
      if (skill[field] === undefined) missing.push(`skills[${index}].${field}`);
    }
  });
  return missing;
}

const requiredFields: AgentCheck = {
  id: 'card.required-fields',
  run(context) {
    const { discovered } = context;
    const found = discovered.found;
    if (found === undefined || !isRecord(discovered.json)) return noCard(context);
    if (discovered.form === '0.3') {
      const missing = v03Missing(discovered.json);
      return missing.length === 0
        ? pass('every field the 0.3 schema requires is present', found.exchange)
        : fail(`the 0.3 card lacks ${missing.join(', ')}`, found.exchange);
    }
    const missing = discovered.violations.filter(isMissing);
    return missing.length === 0
      ? pass('every REQUIRED field is present', found.exchange)
      : fail(listViolations(missing), found.exchange);
  },
};

const schema: AgentCheck = {
  id: 'card.schema',
  run(context) {
    const { discovered } = context;
    const found = discovered.found;
    if (found === undefined || !isRecord(discovered.json)) return noCard(context);
    const wrong = discovered.violations.filter((v) => discovered.form === '0.3' || !isMissing(v));
    const what = discovered.form === '0.3' ? 'the 0.3 card, read as 1.0,' : 'the card';
    return wrong.length === 0
      ? pass(
          `${what} validates as an AgentCard${discovered.violations.length > 0 ? ' apart from missing fields' : ''}`,
          found.exchange,
        )
      : fail(listViolations(wrong), found.exchange);
  },
};

const protocolVersion: AgentCheck = {
  id: 'card.protocol-version',
  run(context) {
    const { discovered } = context;
    const found = discovered.found;
    if (found === undefined || !isRecord(discovered.json)) return noCard(context);
    const card = discovered.json;
    if (discovered.form === '0.3') {
      const version = card.protocolVersion;
      if (typeof version !== 'string')
        return fail('the 0.3 card has no protocolVersion', found.exchange);
      return parseProtocolVersion(version) === undefined
        ? fail(`protocolVersion ${JSON.stringify(version)} is not Major.Minor`, found.exchange)
        : pass(`protocolVersion ${version}`, found.exchange);
    }
    const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
    if (interfaces.length === 0)
      return fail('the card declares no supportedInterfaces', found.exchange);
    const problems: string[] = [];
    const notes: string[] = [];
    const versions = new Set<string>();
    interfaces.forEach((entry: unknown, index) => {
      const value = isRecord(entry) ? entry.protocolVersion : undefined;
      if (typeof value !== 'string' || value === '') {
        problems.push(`supportedInterfaces[${index}] has no protocolVersion`);
        return;
      }
      const parsed = parseProtocolVersion(value);
      if (parsed === undefined) {
        problems.push(
          `supportedInterfaces[${index}].protocolVersion ${JSON.stringify(value)} is not Major.Minor`,
        );
        return;
      }
      versions.add(value);
      if (value.split('.').length > 2)
        notes.push(`${value} carries a patch part, which §3.6 says not to use`);
    });
    if (problems.length > 0) return fail(problems.join('; '), found.exchange);
    return pass(
      `protocol versions ${[...versions].join(', ')}${notes.length === 0 ? '' : ` (${notes.join('; ')})`}`,
      found.exchange,
    );
  },
};

function grpcTarget(url: string): boolean {
  return /^(grpcs?:\/\/|https?:\/\/)?(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}\/?$/i.test(url);
}

const interfaces: AgentCheck = {
  id: 'card.interfaces',
  run(context) {
    const { discovered, view } = context;
    const found = discovered.found;
    if (found === undefined || !isRecord(discovered.json)) return noCard(context);
    if (discovered.form === '0.3') {
      const card = discovered.json;
      if (typeof card.url !== 'string' || card.url === '')
        return fail('the 0.3 card has no url', found.exchange);
      if (typeof card.preferredTransport !== 'string') {
        return fail(
          'the 0.3 card has no preferredTransport (0.3 §5.6.1 requires it)',
          found.exchange,
        );
      }
    }
    if (view.interfaces.length === 0) return fail('the card declares no interface', found.exchange);
    const problems: string[] = [];
    const notes: string[] = [];
    view.interfaces.forEach((entry, index) => {
      const name = `interface ${index} (${entry.protocolBinding || 'no binding'})`;
      if (entry.protocolBinding === '') problems.push(`${name} has no protocolBinding`);
      if (entry.declaredUrl === '') {
        problems.push(`${name} has no url`);
        return;
      }
      if (entry.binding === undefined) {
        if (entry.protocolBinding !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(entry.protocolBinding)) {
          notes.push(
            `${entry.protocolBinding} is no standard binding, and §5.8 asks custom ones to be URIs`,
          );
        }
        return;
      }
      if (entry.binding === 'GRPC') {
        if (!grpcTarget(entry.declaredUrl))
          problems.push(`${name} url ${JSON.stringify(entry.declaredUrl)} is not host:port`);
        return;
      }
      if (!/^https?:\/\//i.test(entry.declaredUrl) || entry.url === undefined) {
        problems.push(
          `${name} url ${JSON.stringify(entry.declaredUrl)} is not an absolute http(s) URL`,
        );
      }
    });
    if (problems.length > 0) return fail(problems.join('; '), found.exchange);
    const list = view.interfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', ');
    return pass(`${list}${notes.length === 0 ? '' : ` (${notes.join('; ')})`}`, found.exchange);
  },
};

function schemeProblems(name: string, scheme: unknown): string[] {
  if (!isRecord(scheme)) return [`securitySchemes.${name} is not an object`];
  const problems: string[] = [];
  const apiKey = scheme.apiKeySecurityScheme;
  if (isRecord(apiKey)) {
    if (!['header', 'query', 'cookie'].includes(String(apiKey.location).toLowerCase())) {
      problems.push(
        `securitySchemes.${name}: the API key location ${JSON.stringify(apiKey.location)} is none of header, query, cookie`,
      );
    }
  }
  const oidc = scheme.openIdConnectSecurityScheme;
  if (
    isRecord(oidc) &&
    typeof oidc.openIdConnectUrl === 'string' &&
    !/^https?:\/\//.test(oidc.openIdConnectUrl)
  ) {
    problems.push(`securitySchemes.${name}: openIdConnectUrl is not an absolute URL`);
  }
  return problems;
}

const securitySchemes: AgentCheck = {
  id: 'card.security-schemes',
  run(context) {
    const { discovered } = context;
    const found = discovered.found;
    if (found === undefined || !isRecord(discovered.json)) return noCard(context);
    const card = context.view.forAuth as unknown as Json;
    const schemes = isRecord(card.securitySchemes) ? card.securitySchemes : {};
    const problems: string[] = [];
    for (const [name, scheme] of Object.entries(schemes))
      problems.push(...schemeProblems(name, scheme));
    const named = (requirements: unknown, where: string): void => {
      if (!Array.isArray(requirements)) return;
      requirements.forEach((requirement: unknown, index) => {
        const names =
          isRecord(requirement) && isRecord(requirement.schemes)
            ? Object.keys(requirement.schemes)
            : [];
        for (const scheme of names) {
          if (!(scheme in schemes))
            problems.push(
              `${where}[${index}] names the undeclared scheme ${JSON.stringify(scheme)}`,
            );
        }
      });
    };
    named(card.securityRequirements, 'securityRequirements');
    (Array.isArray(card.skills) ? card.skills : []).forEach((skill: unknown, index) => {
      if (isRecord(skill))
        named(skill.securityRequirements, `skills[${index}].securityRequirements`);
    });
    if (problems.length > 0) return fail(problems.join('; '), found.exchange);
    const count = Object.keys(schemes).length;
    return count === 0
      ? pass('the card declares no security scheme', found.exchange)
      : pass(
          `${count} scheme${count === 1 ? '' : 's'} (${Object.keys(schemes).join(', ')}), every requirement names a declared one`,
          found.exchange,
        );
  },
};

const caching: AgentCheck = {
  id: 'card.caching',
  run(context) {
    const found = context.discovered.found;
    if (found === undefined) return skip('no card was served');
    const cacheControl = found.answer.header('cache-control') ?? '';
    const missing: string[] = [];
    if (!/(^|[\s,])(s-)?max-age=\d+/i.test(cacheControl))
      missing.push('Cache-Control with max-age');
    if (found.answer.header('etag') === undefined) missing.push('ETag');
    return missing.length === 0
      ? pass(
          `Cache-Control: ${cacheControl}; ETag ${found.answer.header('etag') ?? ''}`,
          found.exchange,
        )
      : fail(`the card is served without ${missing.join(' and ')}`, found.exchange);
  },
};

/** The agent checks of this area, signatures aside. */
export const CARD_CHECKS: readonly AgentCheck[] = [
  wellKnown,
  contentType,
  json,
  requiredFields,
  schema,
  protocolVersion,
  interfaces,
  securitySchemes,
  caching,
];
