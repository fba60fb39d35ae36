import { describe, expect, it } from 'vitest';
import { Router } from '../../src/http/router.js';
import { ConfigurationError } from '../../src/protocol/local-errors.js';

function restRouter(): Router<string> {
  const router = new Router<string>();
  router.add('POST', '/message:send', 'send');
  router.add('POST', '/{tenant}/message:send', 'send@tenant');
  router.add('GET', '/tasks/{id=*}', 'get');
  router.add('GET', '/{tenant}/tasks/{id}', 'get@tenant');
  router.add('GET', '/tasks', 'list');
  router.add('GET', '/{tenant}/tasks', 'list@tenant');
  router.add('POST', '/tasks/{id}:cancel', 'cancel');
  router.add('GET', '/tasks/{id}:subscribe', 'subscribe');
  router.add('POST', '/tasks/{id}:subscribe', 'subscribe');
  router.add('GET', '/tasks/{task_id}/pushNotificationConfigs/{id}', 'getConfig');
  router.add('DELETE', '/tasks/{task_id}/pushNotificationConfigs/{id}', 'deleteConfig');
  router.add('POST', '/a2a', 'rpc');
  router.add('POST', '/a2a/', 'rpc');
  router.add('GET', '/', 'index');
  return router;
}

describe('Router', () => {
  const router = restRouter();

  it('finds literal routes with no params', () => {
    expect(router.lookup('POST', '/message:send')).toEqual({
      kind: 'found',
      target: 'send',
      params: {},
    });
    expect(router.lookup('POST', '/a2a/')).toMatchObject({ kind: 'found', target: 'rpc' });
    expect(router.lookup('GET', '/')).toMatchObject({ kind: 'found', target: 'index' });
  });

  it('binds variables, percent-decoded, and variables before a literal suffix', () => {
    expect(router.lookup('GET', '/tasks/a%2Fb%3Ac')).toEqual({
      kind: 'found',
      target: 'get',
      params: { id: 'a/b:c' },
    });
    expect(router.lookup('POST', '/tasks/t-1:cancel')).toEqual({
      kind: 'found',
      target: 'cancel',
      params: { id: 't-1' },
    });
    expect(router.lookup('GET', '/tasks/x:y:subscribe')).toMatchObject({
      target: 'subscribe',
      params: { id: 'x:y' },
    });
    expect(router.lookup('DELETE', '/tasks/t/pushNotificationConfigs/c')).toMatchObject({
      target: 'deleteConfig',
      params: { task_id: 't', id: 'c' },
    });
  });

  it('prefers a literal segment over a variable, and routes the tenant prefix', () => {
    expect(router.lookup('GET', '/tasks/tasks')).toMatchObject({
      target: 'get',
      params: { id: 'tasks' },
    });
    expect(router.lookup('GET', '/acme/tasks')).toMatchObject({
      target: 'list@tenant',
      params: { tenant: 'acme' },
    });
    expect(router.lookup('GET', '/acme/tasks/t-9')).toMatchObject({
      target: 'get@tenant',
      params: { tenant: 'acme', id: 't-9' },
    });
    expect(router.lookup('POST', '/acme/message:send')).toMatchObject({
      target: 'send@tenant',
      params: { tenant: 'acme' },
    });
  });

  it('answers 405 with every method of the matching routes, and 404 for no match', () => {
    expect(router.lookup('DELETE', '/tasks/t:subscribe')).toMatchObject({
      kind: 'method-not-allowed',
      allow: ['GET', 'POST'],
    });
    expect(router.lookup('GET', '/message:send')).toMatchObject({
      kind: 'method-not-allowed',
      allow: ['POST'],
    });
    expect(router.lookup('GET', '/nothing/here/at/all')).toEqual({ kind: 'not-found' });
    // An empty variable never matches: `:cancel` alone is an id, not a cancel.
    expect(router.lookup('POST', '/tasks/:cancel')).toMatchObject({
      kind: 'method-not-allowed',
      allow: ['GET'],
    });
    expect(router.lookup('GET', '/tasks/%E0%A4%A')).toEqual({ kind: 'not-found' });
    expect(router.methodsOf('/tasks/t:subscribe')).toEqual(['GET', 'POST']);
    expect(router.methodsOf('/nope/x/y')).toEqual([]);
  });

  it('refuses malformed templates and two routes for one method and template', () => {
    const r = new Router<string>();
    r.add('GET', '/x/{id}', 'a');
    expect(() => r.add('GET', '/x/{id}', 'b')).toThrow(ConfigurationError);
    expect(() => r.add('GET', 'x', 'b')).toThrow(/must start with/);
    expect(() => r.add('GET', '/x/{id', 'b')).toThrow(/neither a literal nor/);
    r.add('POST', '/x/{id}', 'c');
    expect(r.lookup('POST', '/x/1')).toMatchObject({ target: 'c' });
  });
});
