/**
 * The runner: the card's checks first, then every interface at once, each interface's checks in
 * catalogue order (so that the binding and error checks, last, see what the others elicited).
 * Interfaces run concurrently because they are independent doors to one agent and a full check
 * must stay quick; within an interface, checks run one after another because they share its
 * fixtures. A check that throws is a failed check, not a failed run — unless the run itself was
 * aborted.
 */

import { AGENT_CHECKS, INTERFACE_CHECKS } from './check-registry.js';
import { resultOf } from './check-report.js';
import { appliesTo, keptByLevel, levelOf, selectChecks } from './check-plan.js';
import type { CardView } from './card-view.js';
import type { DiscoveredCard } from './card-discovery.js';
import type { AgentCheckContext, InterfaceCheckContext, Observation } from './check-context.js';
import type { CheckDefinition, CheckOptions, CheckResult } from './check-types.js';
import { Fixtures } from './fixtures.js';
import { GrpcProbe } from './probe/grpc-probe.js';
import { JsonRpcProbe } from './probe/jsonrpc-probe.js';
import type { CallOutcome, Probe, ProbeTarget, StreamOutcome } from './probe/probe.js';
import type { ProbeEnvironment } from './probe/probe-environment.js';
import { RestProbe } from './probe/rest-probe.js';
import type { PushReceiver } from './push-receiver.js';
import { fail, skip, type Unavailable, type Verdict } from './verdict.js';

/** The interface checks that need no credentials: they are about their absence. */
const WITHOUT_CREDENTIALS = new Set([
  'card.interface-reachable',
  'card.auth-required',
  'card.auth-challenge',
  'card.extended-auth',
]);

const LOCKED =
  'the card requires authentication and no credentials were given (--token-file, --api-key-file, or auth)';

/** What a run needs. */
export interface RunSetup {
  readonly discovered: DiscoveredCard;
  readonly view: CardView;
  readonly environment: ProbeEnvironment;
  readonly options: CheckOptions;
  readonly targets: readonly ProbeTarget[];
  readonly receiver: () => Promise<PushReceiver | Unavailable>;
}

function probeOf(
  environment: ProbeEnvironment,
  target: ProbeTarget,
  onOutcome: (operation: string, outcome: CallOutcome | StreamOutcome) => void,
): Probe {
  switch (target.binding) {
    case 'JSONRPC':
      return new JsonRpcProbe(environment, target, onOutcome);
    case 'HTTP+JSON':
      return new RestProbe(environment, target, onOutcome);
    case 'GRPC':
      return new GrpcProbe(environment, target, onOutcome);
  }
}

async function verdictOf(
  environment: ProbeEnvironment,
  run: () => Promise<Verdict> | Verdict,
): Promise<Verdict> {
  try {
    return await run();
  } catch (error) {
    if (environment.signal.aborted) throw error;
    return fail(
      `the check could not finish: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Whether the options carry credentials of some kind (auth, a client certificate, a header). */
function hasCredentials(options: CheckOptions): boolean {
  if (options.auth !== undefined || options.tls?.cert !== undefined) return true;
  return Object.keys(options.headers ?? {}).some((name) =>
    ['authorization', 'cookie', 'x-api-key'].includes(name.toLowerCase()),
  );
}

/** The checks of the card that apply to it. */
function agentPlan(checks: readonly CheckDefinition[], setup: RunSetup): CheckDefinition[] {
  const form = setup.discovered.form;
  return checks.filter(
    (c) =>
      c.scope === 'agent' &&
      (form === '1.0' || c.v03 !== undefined) &&
      keptByLevel(setup.options, levelOf(c, form)),
  );
}

function interfacePlan(
  checks: readonly CheckDefinition[],
  target: ProbeTarget,
  options: CheckOptions,
): CheckDefinition[] {
  return checks.filter(
    (c) =>
      c.scope === 'interface' &&
      appliesTo(c, target) &&
      keptByLevel(options, levelOf(c, target.version)),
  );
}

/**
 * Runs the checks the options select.
 *
 * @throws ConfigurationError for a filter that names no check; the run's abort reason.
 */
export async function runChecks(setup: RunSetup): Promise<CheckResult[]> {
  const { environment, options } = setup;
  const selected = selectChecks(options);
  const forAgent = agentPlan(selected, setup);
  const forTargets = setup.targets.map((target) => ({
    target,
    plan: interfacePlan(selected, target, options),
  }));
  options.onPlan?.({ total: forAgent.length + forTargets.reduce((n, t) => n + t.plan.length, 0) });
  const results: CheckResult[] = [];
  const report = (result: CheckResult): void => {
    results.push(result);
    options.onCheck?.(result);
  };

  const agentContext: AgentCheckContext = {
    discovered: setup.discovered,
    view: setup.view,
    environment,
    options,
  };
  for (const definition of forAgent) {
    const check = AGENT_CHECKS.get(definition.id);
    if (check === undefined) continue;
    const verdict = await verdictOf(environment, () => check.run(agentContext));
    report(resultOf(definition, verdict, undefined, setup.discovered.form));
  }

  const locked = setup.view.requiresAuthentication && !hasCredentials(options);
  await Promise.all(
    forTargets.map(async ({ target, plan }) => {
      const observations: Observation[] = [];
      const probe = probeOf(environment, target, (operation, outcome) =>
        observations.push({ operation, outcome }),
      );
      const context: InterfaceCheckContext = {
        probe,
        view: setup.view,
        environment,
        options,
        fixtures: new Fixtures(probe, { options, view: setup.view }),
        observations,
        receiver: setup.receiver,
      };
      // Without credentials for an agent that refuses callers without them, every other call
      // would be refused too: only the checks about that refusal run.
      const refused =
        locked &&
        (await context.fixtures
          .withoutCredentials()
          .then((outcome) => outcome.kind === 'error' && outcome.error.refusal !== undefined));
      for (const definition of plan) {
        const check = INTERFACE_CHECKS.get(definition.id);
        if (check === undefined) continue;
        const verdict =
          refused && !WITHOUT_CREDENTIALS.has(definition.id)
            ? skip(LOCKED)
            : await verdictOf(environment, () => check.run(context));
        report(resultOf(definition, verdict, target, target.version));
      }
    }),
  );
  return results;
}
