/**
 * The breaking changes proven against the deployment: the base contract's cases for every operation a breaking
 * change touches are sent (by the engine's own run, so reads go freely and writes follow --allow-irreversible),
 * and each change says whether the deployment still serves what the last release promised or already fails it.
 */
import type { OperationResult, RunResults } from '../model.ts';
import type { Change, Compatibility } from './types.ts';

/** Runs the base contract's cases for the given operations (by `METHOD /path`) and returns the results. */
export type BaseRun = (operations: string[]) => Promise<RunResults | undefined>;

const REMOVALS = /^(api-path-removed|api-removed|webhook-removed|response-success-status-removed|request-body-media-type-removed|response-media-type-removed)/;
const norm = (operation: string) => operation.replace(/\{[^}]*\}/g, '{}');

function resultFor(results: RunResults, operation: string): OperationResult | undefined {
  const key = norm(operation);
  return results.operations.find((o) => o.method && o.path && norm(`${o.method.toUpperCase()} ${o.path}`) === key);
}

/** Why an operation failed, in one line: its first error finding. */
function failureOf(op: OperationResult): string {
  if (op.outcome === 'missing') return `${op.method?.toUpperCase()} ${op.path} is not served any more (${op.reason ?? 'the deployment answers as for a route it does not have'})`;
  for (const c of op.cases) {
    const f = c.findings.find((x) => x.severity === 'error' && !x.waived);
    if (f) {
      const refused = /refused|answered 4\d\d|status 4\d\d/i.test(f.message);
      return refused ? `the request the last release documented is refused: ${f.message}` : f.message;
    }
  }
  return op.reason ?? 'its cases failed';
}

export async function proveChanges(compat: Compatibility, run: BaseRun, where: string): Promise<void> {
  const touched = [...new Set(compat.changes.filter((c) => c.level === 'breaking' && !c.ignored && c.operation).map((c) => baseOperation(c)))];
  if (touched.length === 0) {
    compat.provenNote = 'nothing to prove: no breaking change names an operation';
    return;
  }
  const results = await run(touched);
  if (!results) {
    compat.provenNote = `not proven: the base contract's cases could not run against ${where}`;
    return;
  }
  let proven = 0;
  for (const c of compat.changes) {
    if (c.level !== 'breaking' || c.ignored || !c.operation) continue;
    const op = resultFor(results, baseOperation(c));
    if (!op) continue;
    if (op.outcome === 'passed' || op.outcome === 'flaky') {
      c.deployment = 'still-served';
      c.deploymentDetail = REMOVALS.test(c.rule) ? 'removed from the contract, still served: old clients keep working until it goes' : 'the deployment still honours the last release: old clients keep working for now';
    } else if (op.outcome === 'failed' || op.outcome === 'missing') {
      c.deployment = 'fails-today';
      c.deploymentDetail = `old clients fail today: ${failureOf(op)}`;
    } else continue;
    proven++;
  }
  compat.proven = true;
  compat.provenNote = `proven against ${where}: the base contract's cases of ${touched.length} operation(s) sent; ${proven} breaking change(s) settled`;
}

/** The operation as the base writes it (the change names the revision's where both have it; path names may differ). */
function baseOperation(c: Change): string {
  return c.operation!;
}
