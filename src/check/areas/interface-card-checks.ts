/**
 * Discovery and card, per interface: does each declared interface answer on its binding (spec
 * 8.3.1), is a call without credentials refused when the card requires them (7.4, with a
 * `WWW-Authenticate` challenge on HTTP, 3.3.2), and does GetExtendedAgentCard behave as
 * `capabilities.extendedAgentCard` says (3.1.11, 3.3.4, 13.3).
 */

import { parseMessage } from '../../protocol/validation.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId } from '../check-context.js';
import { describeError, isErrorOfType } from '../probe/wire-error.js';
import { describeOutcome, expectError, fail, pass, skip } from '../verdict.js';

const reachable: InterfaceCheck = {
  id: 'card.interface-reachable',
  async run({ probe }) {
    const outcome = await probe.call('GetTask', { id: unknownTaskId() });
    switch (outcome.kind) {
      case 'unreachable':
        return fail(`no answer at ${probe.target.url}: ${outcome.problem}`, outcome.exchange);
      case 'invalid':
        return fail(
          `${probe.target.url} answers, but not as ${probe.target.binding}: ${outcome.problem}`,
          outcome.exchange,
        );
      case 'error':
        return outcome.error.formProblems.length > 0 &&
          outcome.error.type === undefined &&
          outcome.error.refusal === undefined
          ? fail(
              `${probe.target.url} answers, but not as ${probe.target.binding}: ${outcome.error.formProblems.join('; ')}`,
              outcome.exchange,
            )
          : pass(
              `${probe.target.url} answers GetTask with ${describeError(outcome.error)}`,
              outcome.exchange,
            );
      case 'result':
        return pass(`${probe.target.url} answers GetTask with a result`, outcome.exchange);
    }
  },
};

const authRequired: InterfaceCheck = {
  id: 'card.auth-required',
  async run(context) {
    if (!context.view.requiresAuthentication) return skip('the card requires no authentication');
    const outcome = await context.fixtures.withoutCredentials();
    if (
      outcome.kind === 'error' &&
      outcome.error.refusal !== undefined &&
      outcome.error.refusal !== 'limited'
    ) {
      return pass(
        `a call without credentials is refused: ${describeError(outcome.error)}`,
        outcome.exchange,
      );
    }
    return fail(
      `a call without credentials was not refused as unauthenticated: the agent ${describeOutcome(outcome)}`,
      outcome.exchange,
    );
  },
};

const authChallenge: InterfaceCheck = {
  id: 'card.auth-challenge',
  async run(context) {
    if (!context.view.requiresAuthentication) return skip('the card requires no authentication');
    const outcome = await context.fixtures.withoutCredentials();
    if (outcome.kind !== 'error' || outcome.error.refusal === undefined) {
      return skip('the call without credentials was not refused (see card.auth-required)');
    }
    if (outcome.error.httpStatus !== 401)
      return skip(`refused with HTTP ${outcome.error.httpStatus ?? '?'}, which needs no challenge`);
    const challenge = outcome.exchange.response?.headers['www-authenticate'];
    return challenge === undefined
      ? fail(
          'the 401 carries no WWW-Authenticate header naming the scheme to use',
          outcome.exchange,
        )
      : pass(`WWW-Authenticate: ${challenge}`, outcome.exchange);
  },
};

const extended: InterfaceCheck = {
  id: 'card.extended',
  async run({ probe, view, options }) {
    if (!view.extendedAgentCard)
      return skip('the card does not declare capabilities.extendedAgentCard');
    const outcome = await probe.call('GetExtendedAgentCard', {});
    if (outcome.kind === 'result') {
      const card = parseMessage('AgentCard', outcome.value);
      return card.success
        ? pass(
            `the extended card of ${card.value.name} (${card.value.skills.length} skills)`,
            outcome.exchange,
          )
        : fail('the extended card is not a valid AgentCard', outcome.exchange);
    }
    if (outcome.kind === 'error') {
      if (isErrorOfType(outcome.error, 'ExtendedAgentCardNotConfiguredError')) {
        return pass(
          `declared but not configured: ${describeError(outcome.error)} (allowed by §3.3.4)`,
          outcome.exchange,
        );
      }
      if (outcome.error.refusal !== undefined && options.auth === undefined) {
        return skip(
          `the agent asks for credentials (${describeError(outcome.error)}); pass them to check the extended card`,
        );
      }
    }
    return fail(`GetExtendedAgentCard: the agent ${describeOutcome(outcome)}`, outcome.exchange);
  },
};

const extendedUndeclared: InterfaceCheck = {
  id: 'card.extended-undeclared',
  async run({ probe, view }) {
    if (view.extendedAgentCard)
      return skip('the card declares an extended card (see card.extended)');
    const outcome = await probe.call('GetExtendedAgentCard', {});
    return expectError(
      outcome,
      'UnsupportedOperationError',
      probe.target.binding,
      'GetExtendedAgentCard without capabilities.extendedAgentCard',
    );
  },
};

const extendedAuth: InterfaceCheck = {
  id: 'card.extended-auth',
  async run({ probe, view }) {
    if (!view.extendedAgentCard) return skip('the card does not declare an extended card');
    if (!view.declaresSecurity) {
      return skip(
        'the card declares no security scheme, so there is no authentication to require (§3.1.11)',
      );
    }
    const outcome = await probe.call('GetExtendedAgentCard', {}, { credentials: false });
    if (outcome.kind === 'error' && outcome.error.refusal !== undefined) {
      return pass(`without credentials: ${describeError(outcome.error)}`, outcome.exchange);
    }
    if (
      outcome.kind === 'error' &&
      isErrorOfType(outcome.error, 'ExtendedAgentCardNotConfiguredError')
    ) {
      return skip('the agent has no extended card configured');
    }
    return fail(
      `GetExtendedAgentCard without credentials: the agent ${describeOutcome(outcome)}`,
      outcome.exchange,
    );
  },
};

/** The interface checks of this area. */
export const INTERFACE_CARD_CHECKS: readonly InterfaceCheck[] = [
  reachable,
  authRequired,
  authChallenge,
  extended,
  extendedUndeclared,
  extendedAuth,
];
