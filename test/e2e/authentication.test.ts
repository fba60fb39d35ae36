/**
 * Authentication on every binding (spec 7, 13): each built-in method accepts the credentials it
 * should and refuses the others before the operation runs, in the binding's form — HTTP 401 or
 * 403 with `WWW-Authenticate` and the binding's error body (the drivers check the body's shape;
 * `WWW-Authenticate` is checked where the binding is HTTP-based), gRPC `UNAUTHENTICATED`. The card
 * declares exactly what is enforced, and stays open with `/healthz` and CORS preflights. JWTs
 * are signed by keys this test creates, served from a JWKS on loopback.
 */

import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskNotFoundError } from '../../src/index.js';
import {
  AuthenticationError,
  CredentialList,
  FailedAuthenticationLimiter,
  anyOf,
  apiKeyAuthentication,
  bearerAuthentication,
  defineAgent,
  jwtAuthentication,
  type AgentDefinition,
  type A2ANodeServerOptions,
  type ApiKeyLocation,
  type ServerAuthentication,
} from '../../src/server.js';
import { refusal, rejection } from '../support/a2a-errors.js';
import { testCard } from '../support/agents.js';
import { useBehaviourEnv, type BehaviourEnv } from '../support/behaviour-env.js';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import {
  BINDINGS,
  connectDriver,
  createDriver,
  fetchCard,
  isHttpBinding as isHttp,
} from '../support/drivers/bindings.js';
import type { CallRefusedError, DriverConnection } from '../support/drivers/connection.js';
import {
  startIdentityProvider,
  unsignedToken,
  type IdentityProvider,
} from '../support/identity-provider.js';
import { describeMatrix } from '../support/matrix.js';
import { send, textOf } from '../support/messages.js';
import { recordingLogger } from '../support/recording-logger.js';

/** Answers who called: a message with the principal, or (`task`) a task with it as artifact. */
const whoAmI: AgentDefinition = defineAgent({
  card: testCard('Who am I'),
  async execute(ctx) {
    if (ctx.text === 'task') {
      await ctx.artifact(ctx.caller.principal.id);
      return ctx.complete();
    }
    return ctx.reply(ctx.caller.principal.id);
  },
});

const ALICE_TOKEN = 'alice-token-0123456789abcdef';
const ANONYMOUS_TOKEN = 'unnamed-token-0123456789abcdef';
const KEY = 'service-key-0123456789abcdef';
const AUDIENCE = 'https://agent.example.com';

const tokens = (): CredentialList =>
  new CredentialList({
    kind: 'inline',
    text: `# operators\nalice ${ALICE_TOKEN}\n\n${ANONYMOUS_TOKEN}\n`,
    label: 'test tokens',
  });
const keys = (): CredentialList =>
  new CredentialList({ kind: 'inline', text: `svc ${KEY}`, label: 'test keys' });

/** The `binding` the server logs for each driver's binding. */
const LOGGED_BINDING = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC' } as const;

const bearer = (token: string): DriverConnection => ({
  headers: { authorization: `Bearer ${token}` },
});

describeMatrix(
  'authentication',
  ({ binding, store }) => {
    const env: BehaviourEnv = useBehaviourEnv({ binding, store });
    const logger = recordingLogger();

    /**
     * Serves the agent behind `authentication`; `as` makes a driver with credentials. These tests
     * fail to authenticate on purpose, many times from one address: the limit on failed
     * authentications is off unless `options` set it (it has tests of its own).
     */
    async function serve(
      authentication: ServerAuthentication,
      options: Pick<A2ANodeServerOptions, 'failedAuthentications'> & { grpc?: boolean } = {
        failedAuthentications: false,
      },
    ) {
      const { grpc = false, ...http } = options;
      const server = await env.serve(whoAmI, {
        logger,
        grpc,
        http: { authenticate: authentication, ...http },
      });
      return {
        server,
        as: (connection: DriverConnection): A2ADriver =>
          createDriver(binding, server.agent.url, connection),
      };
    }

    async function principalOf(driver: A2ADriver): Promise<string> {
      return textOf((await driver.sendMessage(send('who'))).message);
    }

    /** Checks a 401/403 refusal's challenge on the HTTP bindings. */
    function expectChallenge(refused: CallRefusedError, challenge: RegExp | string): void {
      if (!isHttp(binding)) return;
      expect(refused.transport.wwwAuthenticate ?? '').toMatch(challenge);
    }

    describe('bearer tokens', () => {
      let as: (connection: DriverConnection) => A2ADriver;
      let url: string;
      beforeAll(async () => {
        const served = await serve(bearerAuthentication(tokens()));
        as = served.as;
        url = served.server.url;
      });

      it('authenticates the principal a token is named for, or one derived from its hash', async () => {
        expect(await principalOf(as(bearer(ALICE_TOKEN)))).toBe('alice');
        const hashed = await principalOf(as(bearer(ANONYMOUS_TOKEN)));
        expect(hashed).toMatch(/^token-[0-9a-f]{16}$/);
        expect(hashed).not.toContain(ANONYMOUS_TOKEN.slice(0, 8));
      });

      it('refuses a missing, wrong or malformed token with 401, the same for any task', async () => {
        const missing = await refusal(as({}).sendMessage(send('who')), 'UNAUTHENTICATED');
        expect(missing.message).toBe('Authentication required: send Authorization: Bearer <token>');
        expectChallenge(missing, /^Bearer realm="a2a"$/);
        if (isHttp(binding)) expect(missing.transport.httpStatus).toBe(401);
        const wrong = await refusal(
          as(bearer('wrong-token-0123456789abcdef')).getTask({ id: 'x' }),
          'UNAUTHENTICATED',
        );
        expect(wrong.message).toBe('The bearer token is not valid');
        expectChallenge(wrong, 'Bearer realm="a2a", error="invalid_token"');
        const task = await as(bearer(ALICE_TOKEN)).sendTask(send('task'));
        const existing = await refusal(
          as(bearer('wrong-token-0123456789abcdef')).getTask({ id: task.id }),
          'UNAUTHENTICATED',
        );
        // Nothing tells a task that exists from one that does not.
        expect(existing.message).toBe(wrong.message);
        // The same body but for the request id JSON-RPC echoes.
        const withoutId = (raw: string | undefined) =>
          raw?.replace(/^\{"jsonrpc":"2.0","id":\d+,/, '');
        expect(withoutId(existing.transport.raw)).toBe(withoutId(wrong.transport.raw));
        await refusal(
          as({ headers: { authorization: `Basic ${ALICE_TOKEN}` } }).listTasks(),
          'UNAUTHENTICATED',
        );
      });

      it('refuses streaming operations before they open', async () => {
        await refusal(as({}).sendStreamingMessage(send('task')), 'UNAUTHENTICATED');
        await refusal(as({}).subscribeToTask({ id: 'x' }), 'UNAUTHENTICATED');
        await refusal(as({}).getExtendedAgentCard(), 'UNAUTHENTICATED');
      });

      it('declares the scheme in the card, and keeps the card, /healthz and preflight open', async () => {
        const card = await fetchCard(url);
        expect(card.securitySchemes).toEqual({
          bearer: {
            httpAuthSecurityScheme: {
              scheme: 'Bearer',
              description: 'A token issued by the operator',
            },
          },
        });
        expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
        if (!isHttp(binding)) return;
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
        const path = binding === 'rest' ? '/message:send' : '';
        const preflight = await fetch(`${as({}).url}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin: 'https://app.example.com',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization',
          },
        });
        expect(preflight.status).toBe(204);
      });

      it('logs refusals without the credential, with the same fields on every binding', async () => {
        const secret = 'leaked-token-0123456789abcdef';
        await refusal(as(bearer(secret)).listTasks(), 'UNAUTHENTICATED');
        const entry = await logger.next(
          (e) => e.message === 'refused a call that did not authenticate',
        );
        expect(entry.level).toBe('warn');
        expect(entry.context).toMatchObject({
          binding: LOGGED_BINDING[binding],
          path: expect.any(String) as unknown,
          status: 401,
          reason: expect.any(String) as unknown,
          credentialsPresented: expect.any(Boolean) as unknown,
          peer: '127.0.0.1',
        });
        expect(
          logger.entries.some(
            (e) =>
              'reason' in e.context &&
              e.context.reason === 'The bearer token is not valid' &&
              'credentialsPresented' in e.context &&
              e.context.credentialsPresented === true,
          ),
        ).toBe(true);
        expect(JSON.stringify(logger.entries)).not.toContain(secret);
        expect(JSON.stringify(logger.entries)).not.toContain(ALICE_TOKEN);
      });
    });

    describe.each(['header', 'query', 'cookie'] as const)('API keys in the %s', (location) => {
      let as: (connection: DriverConnection) => A2ADriver;
      let url: string;
      const name = location === 'header' ? 'X-Service-Key' : 'service_key';
      const placed = (where: ApiKeyLocation, value: string): DriverConnection => {
        switch (where) {
          case 'header':
            return { headers: { [name.toLowerCase()]: value } };
          case 'query':
            return { query: { [name]: value } };
          case 'cookie':
            return { headers: { cookie: `theme=dark; ${name}=${encodeURIComponent(value)}` } };
        }
      };
      beforeAll(async () => {
        const served = await serve(apiKeyAuthentication({ keys: keys(), location, name }));
        as = served.as;
        url = served.server.url;
      });

      it('accepts the key where the card says, and declares it so', async () => {
        if (location === 'query' && !isHttp(binding)) return; // no query string on gRPC
        expect(await principalOf(as(placed(location, KEY)))).toBe('svc');
        const card = await fetchCard(url);
        expect(card.securitySchemes).toEqual({
          apiKey: { apiKeySecurityScheme: { location, name } },
        });
        expect(card.securityRequirements).toEqual([{ schemes: { apiKey: { list: [] } } }]);
      });

      it('refuses a wrong key, and the right key in the wrong place', async () => {
        if (location === 'query' && !isHttp(binding)) return;
        const wrong = await refusal(
          as(placed(location, 'other-key-0123456789abcdef')).listTasks(),
          'UNAUTHENTICATED',
        );
        expect(wrong.message).toMatch(/is not valid$/);
        expectChallenge(wrong, `APIKey realm="a2a", in="${location}", name="${name}"`);
        for (const elsewhere of (['header', 'query', 'cookie'] as const).filter(
          (where) => where !== location && (isHttp(binding) || where !== 'query'),
        )) {
          const refused = await refusal(as(placed(elsewhere, KEY)).listTasks(), 'UNAUTHENTICATED');
          expect(refused.message).toMatch(/^Authentication required: send the API key in/);
        }
      });
    });

    describe('JWTs', () => {
      let idp: IdentityProvider;
      let as: (connection: DriverConnection) => A2ADriver;
      let rotating: (connection: DriverConnection) => A2ADriver;
      let url: string;
      let firstKid: string;
      beforeAll(async () => {
        idp = await startIdentityProvider();
        firstKid = idp.publicJwk().kid as string;
        const served = await serve(
          jwtAuthentication({
            jwksUrl: idp.jwksUrl,
            issuer: idp.issuer,
            audience: AUDIENCE,
            scopes: ['tasks'],
          }),
        );
        as = served.as;
        url = served.server.url;
        // Rotation without a cool-down between JWKS fetches, so that the test needs no clock.
        rotating = (
          await serve(
            jwtAuthentication({
              jwksUrl: idp.jwksUrl,
              issuer: idp.issuer,
              audience: AUDIENCE,
              jwksCooldownMs: 0,
            }),
          )
        ).as;
      });
      afterAll(() => idp.close());

      const scoped = { claims: { scope: 'read tasks' } };

      it('authenticates iss|sub of a valid token with the scope', async () => {
        const token = await idp.token('alice', AUDIENCE, scoped);
        expect(await principalOf(as(bearer(token)))).toBe(`${idp.issuer}|alice`);
        const scp = await idp.token('bob', AUDIENCE, { claims: { scp: ['tasks'] } });
        expect(await principalOf(as(bearer(scp)))).toBe(`${idp.issuer}|bob`);
      });

      it('refuses expired, not yet valid, wrong audience, wrong issuer and missing claims', async () => {
        const now = Math.floor(Date.now() / 1000);
        const cases: [string, Promise<string>, string][] = [
          [
            'expired',
            idp.token('a', AUDIENCE, { claims: { ...scoped.claims, exp: now - 120 } }),
            'The token has expired',
          ],
          [
            'not yet valid',
            idp.token('a', AUDIENCE, { claims: { ...scoped.claims, nbf: now + 600 } }),
            'The token is not valid yet',
          ],
          [
            'wrong audience',
            idp.token('a', 'https://other.example.com', scoped),
            'The token is not meant for this agent (audience)',
          ],
          [
            'wrong issuer',
            idp.token('a', AUDIENCE, {
              claims: { ...scoped.claims, iss: 'https://evil.example.com' },
            }),
            'The token was issued by an issuer this agent does not trust',
          ],
          [
            'no sub',
            idp.token('a', AUDIENCE, { ...scoped, omit: ['sub'] }),
            "The token's sub claim is not valid",
          ],
          [
            'no exp',
            idp.token('a', AUDIENCE, { ...scoped, omit: ['exp'] }),
            "The token's exp claim is not valid",
          ],
        ];
        for (const [what, token, message] of cases) {
          const refused = await refusal(as(bearer(await token)).listTasks(), 'UNAUTHENTICATED');
          expect([what, refused.message]).toEqual([what, message]);
          expectChallenge(refused, 'Bearer realm="a2a", error="invalid_token"');
        }
      });

      it('accepts a token just past exp within the 30 s clock skew', async () => {
        const now = Math.floor(Date.now() / 1000);
        const token = await idp.token('late', AUDIENCE, {
          claims: { ...scoped.claims, exp: now - 5 },
        });
        expect(await principalOf(as(bearer(token)))).toBe(`${idp.issuer}|late`);
      });

      it('refuses alg none and an HMAC made with the public key', async () => {
        const now = Math.floor(Date.now() / 1000);
        const claims = {
          iss: idp.issuer,
          sub: 'mallory',
          aud: AUDIENCE,
          exp: now + 60,
          scope: 'tasks',
        };
        const none = await refusal(
          as(bearer(unsignedToken(claims))).listTasks(),
          'UNAUTHENTICATED',
        );
        expect(none.message).toMatch(/algorithm this agent refuses|not a valid JWT/);
        const jwk = idp.publicJwk();
        const confused = await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', kid: jwk.kid as string })
          .sign(new TextEncoder().encode(JSON.stringify(jwk)));
        const hmac = await refusal(as(bearer(confused)).listTasks(), 'UNAUTHENTICATED');
        expect(hmac.message).toBe('The token is signed with an algorithm this agent refuses');
        const garbage = await refusal(as(bearer('not.a.jwt')).listTasks(), 'UNAUTHENTICATED');
        expect(garbage.message).toBe('The token is not a valid JWT');
      });

      it('refuses a token without the required scope with 403 insufficient_scope', async () => {
        const token = await idp.token('alice', AUDIENCE, { claims: { scope: 'read' } });
        const refused = await refusal(as(bearer(token)).listTasks(), 'PERMISSION_DENIED');
        expect(refused.message).toBe('The token lacks the scope(s) tasks');
        if (isHttp(binding)) expect(refused.transport.httpStatus).toBe(403);
        expectChallenge(refused, 'error="insufficient_scope", scope="tasks"');
        const card = await fetchCard(url);
        expect(card.securitySchemes).toEqual({
          jwt: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
        });
        expect(card.securityRequirements).toEqual([{ schemes: { jwt: { list: ['tasks'] } } }]);
      });

      it('refuses an unknown kid, and accepts a rotated key once the JWKS publishes it', async () => {
        expect(await principalOf(rotating(bearer(await idp.token('a', AUDIENCE))))).toBe(
          `${idp.issuer}|a`,
        );
        const hidden = await idp.unpublishedKey();
        const unknown = await refusal(
          rotating(bearer(await idp.token('a', AUDIENCE, { kid: hidden }))).listTasks(),
          'UNAUTHENTICATED',
        );
        expect(unknown.message).toBe('The token is signed by a key this agent does not know');
        const fetches = idp.jwksFetches;
        const rotated = await idp.rotate();
        const token = await idp.token('rotated', AUDIENCE, { kid: rotated });
        expect(await principalOf(rotating(bearer(token)))).toBe(`${idp.issuer}|rotated`);
        expect(idp.jwksFetches).toBe(fetches + 1);
      });

      it('with the default cool-down, unknown kids do not make it fetch the JWKS again and again', async () => {
        // A key of before the rotation above: the rotated one is not fetched within the cool-down.
        await principalOf(as(bearer(await idp.token('a', AUDIENCE, { ...scoped, kid: firstKid }))));
        const fetches = idp.jwksFetches;
        const hidden = await idp.unpublishedKey();
        for (let i = 0; i < 3; i++) {
          const token = await idp.token('a', AUDIENCE, { ...scoped, kid: hidden });
          await refusal(as(bearer(token)).listTasks(), 'UNAUTHENTICATED');
        }
        expect(idp.jwksFetches - fetches).toBeLessThanOrEqual(1);
      });

      it('finds the JWKS and the issuer by OpenID Connect discovery, and declares it', async () => {
        const { as: oidc, server } = await serve(
          jwtAuthentication({ oidcIssuer: idp.issuer, audience: AUDIENCE }),
        );
        const token = await idp.token('carol', AUDIENCE);
        expect(await principalOf(oidc(bearer(token)))).toBe(`${idp.issuer}|carol`);
        const foreign = await idp.token('carol', AUDIENCE, {
          claims: { iss: 'https://x.example' },
        });
        await refusal(oidc(bearer(foreign)).listTasks(), 'UNAUTHENTICATED');
        const card = await fetchCard(server.url);
        expect(card.securitySchemes).toEqual({
          jwt: {
            openIdConnectSecurityScheme: {
              openIdConnectUrl: `${idp.issuer}/.well-known/openid-configuration`,
            },
          },
        });
      });
    });

    describe('several methods at once', () => {
      let idp: IdentityProvider;
      let as: (connection: DriverConnection) => A2ADriver;
      let url: string;
      beforeAll(async () => {
        idp = await startIdentityProvider();
        const served = await serve(
          anyOf(
            bearerAuthentication(tokens()),
            apiKeyAuthentication({ keys: keys() }),
            jwtAuthentication({ jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: AUDIENCE }),
          ),
        );
        as = served.as;
        url = served.server.url;
      });
      afterAll(() => idp.close());

      it('authenticates by any one of them', async () => {
        expect(await principalOf(as(bearer(ALICE_TOKEN)))).toBe('alice');
        expect(await principalOf(as({ headers: { 'x-api-key': KEY } }))).toBe('svc');
        const jwt = await idp.token('dave', AUDIENCE);
        expect(await principalOf(as(bearer(jwt)))).toBe(`${idp.issuer}|dave`);
      });

      it('refuses with every challenge, and the message of the credentials that were sent', async () => {
        const none = await refusal(as({}).listTasks(), 'UNAUTHENTICATED');
        expect(none.message).toBe('Authentication required: send Authorization: Bearer <token>');
        expectChallenge(
          none,
          /Bearer realm="a2a".*APIKey realm="a2a", in="header", name="X-API-Key"/,
        );
        const wrongKey = await refusal(
          as({ headers: { 'x-api-key': 'nope-nope-0123456789abcdef' } }).listTasks(),
          'UNAUTHENTICATED',
        );
        expect(wrongKey.message).toBe('The API key in the X-API-Key header is not valid');
      });

      it('answers 403 when a method recognised the caller but it lacks a scope', async () => {
        const { as: scoped } = await serve(
          anyOf(
            bearerAuthentication(tokens()),
            jwtAuthentication({
              jwksUrl: idp.jwksUrl,
              issuer: idp.issuer,
              audience: AUDIENCE,
              scopes: ['admin'],
            }),
          ),
        );
        const token = await idp.token('erin', AUDIENCE, { claims: { scope: 'read' } });
        const refused = await refusal(scoped(bearer(token)).listTasks(), 'PERMISSION_DENIED');
        expect(refused.message).toBe('The token lacks the scope(s) admin');
        expect(await principalOf(scoped(bearer(ALICE_TOKEN)))).toBe('alice');
      });

      it('declares each method as an alternative requirement', async () => {
        const card = await fetchCard(url);
        expect(Object.keys(card.securitySchemes ?? {})).toEqual(['bearer', 'apiKey', 'jwt']);
        expect(card.securityRequirements).toEqual([
          { schemes: { bearer: { list: [] } } },
          { schemes: { apiKey: { list: [] } } },
          { schemes: { jwt: { list: [] } } },
        ]);
      });
    });

    describe('failed authentications', () => {
      const WRONG = 'wrong-token-0123456789abcdef';

      it('holds off an address that failed too often, without checking its credentials', async () => {
        let now = 1_000_000;
        const limiter = new FailedAuthenticationLimiter({
          maxFailures: 3,
          windowSeconds: 60,
          now: () => now,
        });
        const { as } = await serve(bearerAuthentication(tokens()), {
          failedAuthentications: limiter,
        });
        // Successful calls cost nothing, before and between failures.
        expect(await principalOf(as(bearer(ALICE_TOKEN)))).toBe('alice');
        await refusal(as(bearer(WRONG)).listTasks(), 'UNAUTHENTICATED');
        await refusal(as({}).getTask({ id: 'x' }), 'UNAUTHENTICATED');
        expect(await principalOf(as(bearer(ALICE_TOKEN)))).toBe('alice');
        await refusal(as(bearer(WRONG)).listTasks(), 'UNAUTHENTICATED');
        // Three failures: even the right token is refused now, on every operation.
        const held = await refusal(as(bearer(ALICE_TOKEN)).listTasks(), 'RESOURCE_EXHAUSTED');
        expect(held.message).toBe(
          'Too many failed authentications from this address: at most 3 per 60 s; retry in 20 s',
        );
        expect(held.transport.retryAfter).toBe('20');
        if (isHttp(binding)) expect(held.transport.httpStatus).toBe(429);
        await refusal(
          as(bearer(ALICE_TOKEN)).sendStreamingMessage(send('task')),
          'RESOURCE_EXHAUSTED',
        );
        await refusal(as(bearer(WRONG)).getExtendedAgentCard(), 'RESOURCE_EXHAUSTED');
        // After the cool-down the address has one failure again: a good token works, and one more
        // wrong one holds it off again.
        now += 20_000;
        expect(await principalOf(as(bearer(ALICE_TOKEN)))).toBe('alice');
        await refusal(as(bearer(WRONG)).listTasks(), 'UNAUTHENTICATED');
        await refusal(as(bearer(ALICE_TOKEN)).listTasks(), 'RESOURCE_EXHAUSTED');

        const entry = await logger.next((e) => e.message === 'a call was refused by a limit');
        expect(entry.level).toBe('warn');
        expect(entry.context).toMatchObject({
          binding: LOGGED_BINDING[binding],
          path: expect.any(String) as unknown,
          limit: 'failedAuthentications',
          caller: 'address:127.0.0.1',
          retryAfterSeconds: 20,
        });
        expect(JSON.stringify(logger.entries)).not.toContain(WRONG);
        expect(JSON.stringify(logger.entries)).not.toContain(ALICE_TOKEN);
      });

      it('counts missing and wrong credentials, not a caller refused for what it lacks (403)', async () => {
        const limiter = new FailedAuthenticationLimiter({ maxFailures: 1 });
        const staffOnly: ServerAuthentication = {
          authenticate: ({ headers }) =>
            headers.get('x-role') === 'staff'
              ? { id: 'staff', anonymous: false }
              : new AuthenticationError('Staff only', { status: 403 }),
          securitySchemes: {},
          securityRequirements: [],
        };
        const { as } = await serve(staffOnly, { failedAuthentications: limiter });
        for (let i = 0; i < 3; i++) {
          await refusal(as({ headers: { 'x-role': 'guest' } }).listTasks(), 'PERMISSION_DENIED');
        }
        expect(await principalOf(as({ headers: { 'x-role': 'staff' } }))).toBe('staff');
      });

      it('counts the failures of every binding together when the servers share a limiter', async () => {
        const limiter = new FailedAuthenticationLimiter({ maxFailures: 3, now: () => 0 });
        const { as, server } = await serve(bearerAuthentication(tokens()), {
          failedAuthentications: limiter,
          grpc: true,
        });
        for (const door of BINDINGS) {
          const driver = await connectDriver(door, server.url, bearer(WRONG));
          await refusal(driver.listTasks(), 'UNAUTHENTICATED');
        }
        await refusal(as(bearer(ALICE_TOKEN)).listTasks(), 'RESOURCE_EXHAUSTED');
      });

      it('is on by default: ten failures, regained over five minutes', async () => {
        const { as } = await serve(bearerAuthentication(tokens()), {});
        for (let i = 0; i < 10; i++) {
          await refusal(as(bearer(WRONG)).listTasks(), 'UNAUTHENTICATED');
        }
        const held = await refusal(as(bearer(ALICE_TOKEN)).listTasks(), 'RESOURCE_EXHAUSTED');
        expect(held.message).toMatch(
          /^Too many failed authentications from this address: at most 10 per 300 s; retry in (29|30) s$/,
        );
      });
    });

    describe('without authentication', () => {
      it('every caller is the one anonymous principal and shares its tasks (documented)', async () => {
        const server = await env.serve(whoAmI);
        const one = createDriver(binding, server.agent.url, bearer(ALICE_TOKEN));
        const other = createDriver(binding, server.agent.url, {});
        expect(await principalOf(one)).toBe('anonymous');
        const task = await one.sendTask(send('task'));
        expect((await other.getTask({ id: task.id })).id).toBe(task.id);
        const card = await fetchCard(server.url);
        expect(card.securitySchemes).toBeUndefined();
        await rejection(other.getTask({ id: 'missing' }), TaskNotFoundError);
      });
    });
  },
  { stores: ['memory'] },
);
