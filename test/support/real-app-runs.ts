/**
 * The four runs of a real application and what each must report (test/runs/real-apps-stacks.test.ts and
 * real-apps-more.test.ts): the app started afresh for each, one request at a time (the same seed must give the
 * same run; concurrent requests reach shared state in an order that varies), --seed 1 twice (once per stack: a
 * stack's second app runs seed 1 once), then seeds 2 and 3.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { found, lenient, requestsSent, RUN_TIMEOUT, runEngine, warned, type App } from './real-apps.ts';

/**
 * One request at a time: the same seed must give the same run, and concurrent requests reach shared state in an
 * order that varies. agreement-api has a race (two concurrent creates of one email: a 500, see the README) that
 * concurrent requests hit by chance, as do the engine's own cases that send one generated email twice; Dropshot's
 * api-trait keeps one counter, whose "update persisted" check would race with the coverage and fuzzing PUTs to it;
 * on Quarkus the records another operation creates meanwhile change what a list answers. Several apps run on
 * single-process development servers (Flask, Django's runserver).
 */
const ENGINE_ARGS = ['--concurrency', '1'];

/** The four runs of an app: the same seed twice, and two more seeds ("seed 1 again" once per stack). */
export const RUNS = [
  { label: 'seed 1', seed: 1 },
  { label: 'seed 1 again', seed: 1 },
  { label: 'seed 2', seed: 2 },
  { label: 'seed 3', seed: 3 },
] as const;

export type Label = (typeof RUNS)[number]['label'];
export type Runs = Record<Label, RunResults>;

async function runAll(start: () => Promise<App>, list: ReadonlyArray<(typeof RUNS)[number]>): Promise<Runs> {
  const runs: Partial<Runs> = {};
  for (const { label, seed } of list) {
    const app = await start();
    try {
      runs[label] = await runEngine(app, seed, ENGINE_ARGS);
    } finally {
      await app.stop();
    }
  }
  return runs as Runs;
}

/** Per-case outcomes of a run ("<operationId> <case name>: <outcome>"): the same seed must give the same. */
export function caseOutcomes(results: RunResults): string[] {
  return results.operations
    .filter((o) => o.method !== null)
    .flatMap((o) => o.cases.map((c) => `${o.operationId} ${c.name}: ${c.outcome}`))
    .sort();
}

/**
 * An error the engine reports that is not a defect of the app: under every seed, or (`seeds`) under those only;
 * or, given per run, exactly those under each.
 */
export type KnownFalse = Array<string | { finding: string; seeds: number[] }> | Record<Label, string[]>;

export interface Expected {
  /** True defects reported as errors under every seed: each run must report each. */
  found: string[];
  /** True defects some seeds report: at least one of the runs must report each, the others may. */
  someSeed?: string[];
  /**
   * True defects allowed, not required: no run of the kept evidence reported them (the engine does not find them
   * yet, or finds them only by chance); a run that reports one is not wrong. The README does not count them as found.
   */
  alsoTrue?: string[];
  /** Errors that are not defects of the app (each explained where it is listed). */
  knownFalse?: KnownFalse;
  /** True defects the contract does not settle (an undocumented method's answer), reported as warnings under every seed. */
  warned?: string[];
  /** Inputs the app takes that the contract does not describe as valid but does not forbid, listed apart under every seed. */
  lenient?: string[];
}

/** The known false findings a run must report, exactly. */
function knownFalseOf(known: KnownFalse | undefined, label: Label, seed: number): string[] {
  if (known === undefined) return [];
  if (!Array.isArray(known)) return known[label] ?? [];
  return known.flatMap((k) => (typeof k === 'string' ? [k] : k.seeds.includes(seed) ? [k.finding] : []));
}

/** The findings of `required` that none of the runs (each a list of findings) reported. */
export function reportedByNoRun(runs: string[][], required: string[]): string[] {
  return required.filter((f) => !runs.some((r) => r.includes(f)));
}

/** The labels of the runs an app made (without "seed 1 again" where its stack's other app runs the same seed twice). */
export function labelsOf(runs: Runs): Label[] {
  return RUNS.map((r) => r.label).filter((label) => runs[label] !== undefined);
}

/**
 * The runs of an app and what every one of them must report; `more` adds the app's own tests. `sameSeedTwice:
 * false` for the second app of a stack: the same seed twice proves the engine repeats itself on that stack once.
 */
export function describeRealApp(name: string, start: () => Promise<App>, expected: Expected, more?: (runs: () => Runs) => void, options: { sameSeedTwice?: boolean } = {}): void {
  const twice = options.sameSeedTwice !== false;
  const appRuns = RUNS.filter((r) => twice || r.label !== 'seed 1 again');
  const allKnownFalse = [...new Set(appRuns.flatMap(({ label, seed }) => knownFalseOf(expected.knownFalse, label, seed)))];
  describe(name, () => {
    let runs: Runs;
    beforeAll(async () => {
      runs = await runAll(start, appRuns);
    }, appRuns.length * RUN_TIMEOUT);

    test('the true defects are found under every seed', () => {
      for (const { label } of appRuns) {
        const findings = found(runs[label]);
        for (const f of expected.found) expect(findings, label).toContain(f);
      }
    });

    if (expected.lenient?.length) {
      test('what the app takes leniently is listed apart under every seed (warnings, not failures)', () => {
        for (const { label } of appRuns) for (const l of expected.lenient ?? []) expect(lenient(runs[label]), label).toContain(l);
      });
    }

    if (expected.warned?.length) {
      test('the warnings the contract cannot settle are reported under every seed', () => {
        for (const { label } of appRuns) for (const w of expected.warned ?? []) expect(warned(runs[label]), label).toContain(w);
      });
    }

    if (expected.someSeed?.length) {
      test('the true defects some seed finds are found by at least one run', () => {
        expect(reportedByNoRun(appRuns.map(({ label }) => found(runs[label])), expected.someSeed ?? [])).toEqual([]);
      });
    }

    test('nothing else under any seed', () => {
      const allowed = new Set([...expected.found, ...(expected.someSeed ?? []), ...(expected.alsoTrue ?? []), ...allKnownFalse]);
      for (const { label } of appRuns) expect(found(runs[label]).filter((f) => !allowed.has(f)), label).toEqual([]);
    });

    if (allKnownFalse.length > 0) {
      // Findings the engine reports that are not defects of the app (test/real-apps/README.md says why):
      // listed so that a change to the engine that drops them (or adds others) shows here.
      test("the engine's known false findings on this app, exactly", () => {
        for (const { label, seed } of appRuns) {
          expect(found(runs[label]).filter((f) => allKnownFalse.includes(f)), label).toEqual(knownFalseOf(expected.knownFalse, label, seed).sort());
        }
      });
    }

    if (twice) test('the same seed twice: the same findings and case outcomes', () => {
      expect(found(runs['seed 1 again'])).toEqual(found(runs['seed 1']));
      expect(caseOutcomes(runs['seed 1 again'])).toEqual(caseOutcomes(runs['seed 1']));
      expect(requestsSent(runs['seed 1 again'])).toBe(requestsSent(runs['seed 1']));
    });

    more?.(() => runs);
  });
}
