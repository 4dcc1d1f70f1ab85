/**
 * Helpers for conformance suites: the generated one and the scenario suites a QA engineer writes.
 *   const api = await conformanceClient();          // the run's session, bound to the target
 *   const res = await api.call('create-order', { body: { item: 'X', quantity: 1 } });
 *   expect(res).toConformTo('create-order'); // the registered checks, as in the generated cases
 */
import { boundedFinding, capRecorded, RECORDED_BODY_CAP } from '../report/assemble.ts';
import { getCurrentTest } from '@vitest/runner';
import { expect, inject, type TestContext } from 'vitest';
import { runChecks } from '../checks/registry.ts';
import { SchemaCompileError } from '../checks/schema.ts';
import type { RunConfig } from '../execute/config.ts';
import { Session } from '../execute/session.ts';
import type { CaseResult, Exchange, Finding, RecordedResponse } from '../model.ts';
import type { Expectation_ } from '../plan/cases.ts';
import { UNMET_OPERATIONS, type ConformanceMeta } from './meta.ts';

export type { ConformanceMeta } from './meta.ts';

/** The operations the suites of this worker named (unmetOperations): the description files a session loads. */
const named = new Set<string>();
/** Sessions by the description files they loaded (the scenario suites of a worker share them). */
const loaded: Array<{ files: string[]; session: Promise<Session> }> = [];
const ready: Session[] = [];

/** The run's configuration; a clear error when the suite is started outside `npm run conformance`. */
export function runConfig(): RunConfig {
  const config = inject('conformance');
  if (!config) throw new Error('No conformance run configuration: run the suites with `npm run conformance`.');
  return config;
}

/** The description files holding these operations, in the run's order (all of them when the run did not say). */
function filesOf(operationIds: Iterable<string>): string[] {
  const config = runConfig();
  const fileOf = inject('conformanceOperations');
  if (!fileOf) return config.contractFiles;
  const wanted = new Set([...operationIds].map((id) => fileOf[id]));
  return config.contractFiles.filter((f) => wanted.has(f));
}

function sessionOver(files: string[]): Promise<Session> {
  const config = runConfig();
  const wanted = files.length > 0 ? files : config.contractFiles;
  const covering = loaded.find((l) => wanted.every((f) => l.files.includes(f)));
  if (covering) return covering.session;
  const session = Session.create({ ...config, contractFiles: wanted }).then((s) => {
    ready.push(s);
    return s;
  });
  loaded.push({ files: wanted, session });
  return session;
}

/**
 * A session of this worker: contract, profile, HTTP client and cleanup ledger, over the description files
 * holding the operations the suites named (every file when none was named): a suite of a few operations does
 * not load a contract of thousands.
 */
export function session(): Promise<Session> {
  return sessionOver(named.size > 0 ? filesOf(named) : runConfig().contractFiles);
}

/** The session that holds this operation: a loaded one, else one over the named files no session holds yet. */
function sessionFor(operationId: string): Promise<Session> {
  const own = filesOf([operationId]);
  const covering = own.length > 0 ? loaded.find((l) => own.every((f) => l.files.includes(f))) : undefined;
  if (covering) return covering.session;
  const unloaded = filesOf(named).filter((f) => !loaded.some((l) => l.files.includes(f)));
  return sessionOver(own.length > 0 ? [...new Set([...unloaded, ...own])] : []);
}

/**
 * What a scenario suite declares it needs: the reason to skip it when the run's contract lacks any of these
 * operations, else undefined. Use it in beforeEach: `if (unmet) skip(unmet)`.
 */
export async function unmetOperations(...operationIds: string[]): Promise<string | undefined> {
  const fileOf = inject('conformanceOperations');
  const known = fileOf ? new Set(Object.keys(fileOf)) : new Set((await session()).contract.operations.map((o) => o.operationId));
  const lacking = operationIds.filter((id) => !known.has(id));
  if (lacking.length === 0) for (const id of operationIds) named.add(id);
  return lacking.length > 0 ? `${UNMET_OPERATIONS}${lacking.join(', ')}` : undefined;
}

export interface CallResult {
  operationId: string;
  status: number | undefined;
  body: unknown;
  exchange: Exchange;
}

export interface ConformanceClient {
  call(
    operationId: string,
    request?: { pathParams?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; auth?: 'valid' | 'none' | 'wrong' },
  ): Promise<CallResult>;
  otp(transactionId: string): Promise<string | undefined>;
  readonly otpSourceConfigured: boolean;
}

export async function conformanceClient(): Promise<ConformanceClient> {
  // Nothing is loaded until the first call: a suite whose tests all skip costs no contract.
  return {
    async call(operationId, request = {}) {
      const s = await sessionFor(operationId);
      const exchange = await s.call(s.operation(operationId), request);
      return { operationId, status: exchange.response?.status, body: exchange.response?.json, exchange };
    },
    async otp(transactionId) {
      const s = await (loaded[0]?.session ?? session());
      return s.fixtures.readOtp(transactionId).catch(() => undefined);
    },
    get otpSourceConfigured() {
      return runConfig().otpSourceUrl !== undefined;
    },
  };
}

/** Records a case result in the test's meta so the reporters show it under its operation. */
export function recordCase(task: TestContext['task'], operationId: string, result: CaseResult): void {
  const list: ConformanceMeta[] = task.meta.conformance ?? [];
  // One test may check the same operation more than once: keep case names unique (#2, #3, ...).
  const same = list.filter((m) => m.operationId === operationId && (m.result.name === result.name || m.result.name.startsWith(`${result.name} #`))).length;
  list.push({ operationId, result: same > 0 ? { ...result, name: `${result.name} #${same + 1}` } : result });
  task.meta.conformance = list;
}

interface ConformanceMatchers<R = unknown> {
  /** Runs the contract's checks for a call that should succeed (or, with `expectation`, be rejected). */
  toConformTo(operationId: string, expectation?: Expectation_): R;
}

declare module 'vitest' {
  // The type parameter must repeat vitest's own declaration exactly for the interfaces to merge.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  interface Matchers<T = any> extends ConformanceMatchers<T> {}
}

expect.extend({
  toConformTo(received: CallResult, operationId: string, expectation: Expectation_ = 'success') {
    const s = ready.find((r) => r.contract.operations.some((o) => o.operationId === operationId)) ?? ready.at(-1);
    if (!s) return { pass: false, message: () => 'The conformance session is not ready: await conformanceClient() first.' };
    const exchange = received.exchange;
    if (!exchange.response) {
      return { pass: false, message: () => `${operationId}: no response (${exchange.error?.message ?? 'unknown error'})` };
    }
    let judged: ReturnType<typeof runChecks>;
    try {
      judged = runChecks({
        exchange: exchange as Exchange & { response: RecordedResponse },
        operation: s.operation(operationId),
        profile: s.profileOf(s.operation(operationId)),
        validator: s.validator,
        expectation,
        expect: [],
      });
    } catch (error) {
      if (!(error instanceof SchemaCompileError)) throw error;
      return { pass: false, message: () => `${operationId}: the tool cannot judge the response: ${error.message}` };
    }
    const { checks, findings } = judged;
    const errors = findings.filter((f) => f.severity === 'error');
    const task = getCurrentTest();
    if (task) {
      recordCase(task, operationId, {
        name: `scenario: ${task.name}`,
        kind: 'scenario',
        outcome: errors.length ? 'failed' : 'passed',
        durationMs: Math.round(exchange.durationMs),
        checks,
        // Kept as a report shows it: a megabyte answer is not carried to the reporter whole.
        findings: exchange.response.size > RECORDED_BODY_CAP || exchange.response.body.length > RECORDED_BODY_CAP ? findings.map(boundedFinding) : findings,
        exchanges: [capRecorded(exchange)],
      });
    }
    return {
      pass: errors.length === 0,
      message: () =>
        errors.length === 0
          ? `${operationId}: expected a contract violation, the response conforms`
          : `${operationId} does not conform:\n${errors.map((f: Finding) => `  [${f.check}] ${f.message}`).join('\n')}`,
    };
  },
});
