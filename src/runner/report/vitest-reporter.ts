import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { CaseResult, Contract, OperationResult, RunResults } from '../model.ts';
import { UNMET_OPERATIONS } from '../testing/meta.ts';
import { assembleOperations, withCurl } from './assemble.ts';

/** Live progress as tests finish (the console reporter implements it). */
export interface ProgressSink {
  start(total: number): void;
  update(done: number, failuresSoFar: number, current?: string): void;
  finish(): void;
}

export interface CollectOptions {
  /** The operations selected for this run, in canonical order: each gets a result even if no test ran. */
  operations: Contract['operations'];
  /** Every operation of the contract: scenario tests may exercise operations outside the selection. */
  allOperations: Contract['operations'];
  /** Planned generated tests per operationId (progress counts an operation done when all have finished). */
  plannedCases: Record<string, number>;
  progress?: ProgressSink;
  /** Called once with the raw operation results and why the run ended. */
  onEnd: (operations: OperationResult[], end: { reason: 'passed' | 'failed' | 'interrupted'; errors: string[] }) => Promise<void> | void;
}

const SEPARATOR = ' › ';
const SCENARIO_PREFIX = 'scenario: ';

function isGenerated(moduleId: string): boolean {
  return /[\\/]suites[\\/]generated[\\/]/.test(moduleId);
}

/**
 * Bridges vitest to results.json: every test carries its case results in `task.meta.conformance`; this
 * reporter gathers them per operation. Tests that ended without meta (a crash in the suite) become errored
 * cases of the operation their name names, so nothing that ran is lost.
 */
export class ConformanceCollector implements Reporter {
  private readonly finished = new Map<string, number>();
  private readonly failing = new Set<string>();
  private done = 0;

  constructor(private readonly options: CollectOptions) {}

  onTestRunStart(): void {
    this.options.progress?.start(Object.keys(this.options.plannedCases).length);
  }

  /** Progress names each case as it starts, so a slow first operation does not look like a stall. */
  onTestCaseReady(testCase: TestCase): void {
    if (this.options.plannedCases[splitName(testCase.name)[0]] !== undefined) this.options.progress?.update(this.done, this.failing.size, `${testCase.name} …`);
  }

  onTestCaseResult(testCase: TestCase): void {
    const [operationId] = splitName(testCase.name);
    const planned = this.options.plannedCases[operationId];
    if (planned === undefined) return;
    const count = (this.finished.get(operationId) ?? 0) + 1;
    this.finished.set(operationId, count);
    if (testCase.result().state === 'failed') this.failing.add(operationId);
    if (count === planned) this.done++;
    this.options.progress?.update(this.done, this.failing.size, testCase.name);
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>, reason: 'passed' | 'failed' | 'interrupted'): Promise<void> {
    this.options.progress?.finish();
    const byOperation = new Map<string, CaseResult[]>();
    const add = (operationId: string, result: CaseResult) => byOperation.set(operationId, [...(byOperation.get(operationId) ?? []), result]);
    const errors: string[] = unhandledErrors.map((e) => firstLine(e.message ?? 'unhandled error'));
    /** Scenario-level results live in the `scenarios` group, one entry per scenario test. */
    const scenarioFailure = (test: TestCase, outcome: 'failed' | 'errored', message: string | undefined) =>
      add(`${SCENARIO_PREFIX}${test.fullName}`, {
        name: test.name,
        kind: 'scenario',
        outcome,
        errorMessage: firstLine(message ?? 'the scenario failed'),
        durationMs: Math.round(test.diagnostic()?.duration ?? 0),
        checks: [],
        findings: [],
        exchanges: [],
      });
    // A scenario suite skipped because the contract lacks operations it needs: one entry per suite, with why.
    const unmetSuites = new Set<string>();
    const scenarioUnmet = (test: TestCase, note: string) => {
      const suite = test.fullName.split(' > ')[0] ?? test.name;
      if (unmetSuites.has(suite)) return;
      unmetSuites.add(suite);
      add(`${SCENARIO_PREFIX}${suite}`, { name: suite, kind: 'scenario', outcome: 'skipped', skipReason: note, durationMs: 0, checks: [], findings: [], exchanges: [] });
    };
    for (const mod of [...testModules].sort((a, b) => a.moduleId.localeCompare(b.moduleId))) {
      for (const error of mod.errors()) errors.push(`${mod.moduleId}: ${firstLine(error.message ?? 'error')}`);
      for (const test of mod.children.allTests()) {
        const meta = test.meta().conformance;
        if (meta && meta.length > 0) {
          for (const { operationId, result } of meta) add(operationId, withCurl(result));
          // A scenario whose own assertion failed after its calls conformed: the scenario itself failed.
          const outcome = test.result();
          if (outcome.state === 'failed' && !meta.some((m) => m.result.outcome !== 'passed')) {
            scenarioFailure(test, 'failed', outcome.errors?.[0]?.message);
          }
          continue;
        }
        const outcome = test.result();
        const state = outcome.state;
        if (state === 'pending') continue;
        if (!isGenerated(mod.moduleId)) {
          // A scenario test that made no checked call: only its failure (or unmet needs) is worth reporting.
          if (state === 'skipped' && outcome.note?.startsWith(UNMET_OPERATIONS)) scenarioUnmet(test, outcome.note);
          if (state === 'failed') scenarioFailure(test, 'errored', outcome.errors?.[0]?.message);
          continue;
        }
        const [operationId, caseName] = splitName(test.name);
        const message = test.result().errors?.[0]?.message;
        add(operationId, {
          name: caseName,
          kind: 'scenario',
          outcome: state === 'skipped' ? 'skipped' : state === 'passed' ? 'passed' : 'errored',
          ...(outcome.state === 'skipped' ? { skipReason: outcome.note ?? 'skipped' } : {}),
          ...(state === 'failed' ? { errorMessage: firstLine(message ?? 'the test failed without a result') } : {}),
          durationMs: Math.round(test.diagnostic()?.duration ?? 0),
          checks: [],
          findings: [],
          exchanges: [],
        });
      }
    }
    const operations = assembleOperations({
      operations: this.options.operations,
      allOperations: this.options.allOperations,
      cases: byOperation,
      interrupted: reason === 'interrupted',
    });
    await this.options.onEnd(operations, { reason, errors });
  }
}

function splitName(name: string): [string, string] {
  const at = name.indexOf(SEPARATOR);
  return at < 0 ? [name, name] : [name.slice(0, at), name.slice(at + SEPARATOR.length)];
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

export type { RunResults };
