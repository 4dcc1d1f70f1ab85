/**
 * `conformance plan` (and `run --dry-run`): every case a run with these options would send, and why each
 * skipped case or left-out operation would not run. Loads the contract; sends nothing.
 */
import { planOptionsOf } from '../plan/options.ts';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { matchesSelector, selectOperations } from '../execute/select.ts';
import { defaultFuzzExamples, planOperation } from '../plan/cases.ts';
import { shareLine, type LocationCounts } from '../plan/input-location.ts';
import { plannedLocations } from './plan-share.ts';
import { InputError } from '../description/errors.ts';
import { loadExamples } from '../description/examples.ts';
import { loadContract } from '../description/load.ts';
import { loadProfiles, profileFor } from '../description/profiles.ts';
import picomatch from 'picomatch';
import { fromPacks, packsFor, type Pack } from '../pack.ts';
import type { RunOptions } from '../run.ts';

export interface PlanSummary {
  operations: number;
  cases: number;
  skipped: number;
  leftOut: number;
  /** The planned requests by the location of the input each varies (cli/plan-share.ts). */
  requestsByLocation: LocationCounts;
}

/** Test files under a directory (scenario suites), sorted. */
export function suiteFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.test\.[cm]?[jt]s$/.test(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** A pack's scenario suite files (its globs under its root). */
function packSuiteFiles(pack: Pack): string[] {
  if (!pack.suites) return [];
  const { root, include, exclude = [] } = pack.suites;
  const wanted = picomatch(include);
  const unwanted = picomatch(exclude.length > 0 ? exclude : ['!**']);
  // Walk only below each glob's fixed leading folders (suites/scenarios/ of suites/scenarios/**/*.test.ts).
  const bases = [...new Set(include.map((g) => g.split('/').filter((_, i, all) => all.slice(0, i + 1).every((seg) => !/[*?[\]{}!]/.test(seg))).join('/')))];
  const found = [...new Set(bases.flatMap((b) => { try { return suiteFiles(join(root, b)); } catch { return []; } }))];
  return found.filter((f) => {
    const rel = relative(root, f).replace(/\\/g, '/');
    return !rel.startsWith('node_modules/') && wanted(rel) && !(exclude.length > 0 && unwanted(rel));
  });
}

export async function printPlan(options: RunOptions, write: (line: string) => void): Promise<PlanSummary> {
  const contract = await loadContract(options.specs);
  const applying = packsFor(options.packs ?? [], contract.services);
  const examples = await loadExamples(options.examples ?? fromPacks(applying, 'examples'));
  const profiles = await loadProfiles(options.profile ?? fromPacks(applying, 'profile') ?? 'generic', contract);
  for (const pattern of [...options.include, ...options.exclude]) {
    if (!contract.operations.some((o) => matchesSelector(o, pattern))) {
      throw new InputError(`--include/--exclude "${pattern}" names no operation of the contract`);
    }
  }
  const embedded = Object.keys(options.servers).length === 0 && options.baseUrl === undefined;
  const planOptions = planOptionsOf({ ...options, allowIrreversible: embedded || options.allowIrreversible, otpSource: embedded || options.otpSourceUrl !== undefined });
  const selected = selectOperations(contract.operations, options);
  const chosen = new Set(selected.map((o) => o.operationId));
  const summary: PlanSummary = { operations: selected.length, cases: 0, skipped: 0, leftOut: contract.operations.length - selected.length, requestsByLocation: {} };
  const share = { seed: options.seed, allowIrreversible: planOptions.allowIrreversible, fuzzExamples: options.fuzzExamples ?? defaultFuzzExamples(selected), ...(options.maxExamples !== undefined ? { maxExamples: options.maxExamples } : {}) };
  const lines: string[] = [];
  let group = '';
  for (const op of selected) {
    const heading = `${op.service} ${op.group}`;
    if (heading !== group) {
      group = heading;
      lines.push(heading);
    }
    lines.push(`  ${op.operationId}  ${op.method} ${op.path}`);
    const planned = planOperation(contract, op, profileFor(profiles, op.service), examples, planOptions).cases;
    plannedLocations(contract, op, planned, share, summary.requestsByLocation);
    for (const c of planned) {
      summary.cases++;
      if (c.skip) {
        summary.skipped++;
        lines.push(`    skip  ${c.name}: ${c.skip}`);
      } else {
        lines.push(`    run   ${c.name}`);
      }
    }
  }
  const leftOut = contract.operations.filter((o) => !chosen.has(o.operationId));
  if (leftOut.length > 0) {
    lines.push('not selected (--include, --exclude or --shard):');
    for (const op of leftOut) lines.push(`  ${op.operationId}  ${op.method} ${op.path}`);
  }
  const scenarios = options.include.length === 0 && options.exclude.length === 0 && (!options.shard || options.shard.index === 1);
  const files = [...applying.flatMap(packSuiteFiles), ...(options.suites ?? []).flatMap((dir) => suiteFiles(dir))];
  lines.push(scenarios ? (files.length > 0 ? 'scenario suites:' : 'scenario suites: none apply to this contract') : 'scenario suites: none (they run only without --include/--exclude and in shard 1)');
  if (scenarios) for (const f of files) lines.push(`  ${relative(process.cwd(), f) || f}`);
  write(
    `Plan: ${summary.operations} operation(s), ${summary.cases} case(s): ${summary.cases - summary.skipped} would run, ${summary.skipped} would be skipped; ` +
      `${summary.leftOut} operation(s) not selected. Nothing was sent.`,
  );
  // Where the inputs the requests vary are: each location's share, so a parameter location the plan hardly reaches shows.
  write(`Planned requests by input location (coverage and fuzzing in full, every other case as one): ${shareLine(summary.requestsByLocation)}`);
  for (const line of lines) write(line);
  return summary;
}
