/**
 * Version negotiation (spec 3.6.2), on each 1.0 interface: `A2A-Version: 1.0` is served, a
 * version the agent cannot speak gets VersionNotSupportedError, and a request without the
 * header is a 0.3 request — served as 0.3 or refused, never served as 1.0. The probe for the
 * missing header is ListTasks, which 0.3 does not have: a 1.0 answer to it proves the agent
 * ignored the rule. On gRPC the version travels as `a2a-version` metadata (spec 10.2).
 */

import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId } from '../check-context.js';
import { describeError, isErrorOfType } from '../probe/wire-error.js';
import { describeOutcome, expectError, fail, pass } from '../verdict.js';

const accepted: InterfaceCheck = {
  id: 'version.accepted',
  async run({ probe }) {
    const outcome = await probe.call('GetTask', { id: unknownTaskId() }, { version: '1.0' });
    if (outcome.kind === 'error' && isErrorOfType(outcome.error, 'VersionNotSupportedError')) {
      return fail(`A2A-Version 1.0 was refused: ${describeError(outcome.error)}`, outcome.exchange);
    }
    if (outcome.kind === 'result' || outcome.kind === 'error') {
      return pass(`GetTask with A2A-Version 1.0 ${describeOutcome(outcome)}`, outcome.exchange);
    }
    return fail(
      `GetTask with A2A-Version 1.0: the agent ${describeOutcome(outcome)}`,
      outcome.exchange,
    );
  },
};

const unsupported: InterfaceCheck = {
  id: 'version.unsupported',
  async run({ probe }) {
    const outcome = await probe.call('GetTask', { id: unknownTaskId() }, { version: '99.0' });
    return expectError(
      outcome,
      'VersionNotSupportedError',
      probe.target.binding,
      'GetTask with A2A-Version 99.0',
    );
  },
};

const missing: InterfaceCheck = {
  id: 'version.missing',
  async run({ probe }) {
    const outcome = await probe.call('ListTasks', {}, { version: null });
    switch (outcome.kind) {
      case 'result':
        return fail(
          'ListTasks without A2A-Version was served as 1.0; a request without the header is 0.3 (§3.6.2), which has no ListTasks',
          outcome.exchange,
        );
      case 'error':
        return pass(
          isErrorOfType(outcome.error, 'VersionNotSupportedError')
            ? `refused as 0.3: ${describeError(outcome.error)}`
            : `not served as 1.0: ${describeError(outcome.error)}`,
          outcome.exchange,
        );
      default:
        return fail(
          `ListTasks without A2A-Version: the agent ${describeOutcome(outcome)}`,
          outcome.exchange,
        );
    }
  },
};

/** The checks of this area. */
export const VERSION_CHECKS: readonly InterfaceCheck[] = [accepted, unsupported, missing];
