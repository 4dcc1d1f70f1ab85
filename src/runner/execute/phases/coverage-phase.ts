import type { CaseResult } from '../../model.ts';
import { coverageVariations, DEFAULT_MAX_EXAMPLES } from '../../plan/coverage.ts';
import { Random } from '../../plan/random.ts';
import type { CaseRun } from '../case-run.ts';
import type { CallRequest } from '../request-builder.ts';
import type { Session } from '../session.ts';
import { fromVariations, runCoverage, type CoverageItem } from './coverage.ts';
import { replayed } from './replay.ts';

/** The coverage case of one operation: its planned items sent and judged (phases/coverage.ts), then replayed. */
export async function runCoveragePhase(session: Session, run: CaseRun, request: CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> }): Promise<CaseResult> {
  const { op } = run;
  const random = new Random(`${session.config.seed}:${op.operationId}:coverage`);
  const items: CoverageItem[] = fromVariations(coverageVariations(op, request.body, request.query, random, session.config.maxExamples ?? DEFAULT_MAX_EXAMPLES));
  if (items.length === 0) return run.skipped('the contract shows no constraint to vary in this request');
  const { sent } = await runCoverage(run, request, items);
  if (sent === 0) return run.skipped('no coverage request was sent');
  return replayed(session, run, run.result({ evidenceOnly: true }));
}
