import type { CaseResult } from '../../model.ts';
import { DEFAULT_MAX_EXAMPLES } from '../../plan/coverage.ts';
import { coverageRequests } from '../../plan/coverage-classes.ts';
import { Random } from '../../plan/random.ts';
import type { CaseRun } from '../case-run.ts';
import type { CallRequest } from '../request-builder.ts';
import type { Session } from '../session.ts';
import { runCoverage, type CoverageItem } from './coverage.ts';
import { replayed } from './replay.ts';

/** Class requests of one operation at most (the generator's round robin touches every parameter first). */
const CLASS_LIMIT = 100;

/** The coverage case of one operation: its planned items sent and judged (phases/coverage.ts), then replayed. */
export async function runCoveragePhase(session: Session, run: CaseRun, request: CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> }): Promise<CaseResult> {
  const { op } = run;
  const random = new Random(`${session.config.seed}:${op.operationId}:coverage`);
  const positive = { pathParams: request.pathParams, query: request.query, ...(request.headers ? { headers: request.headers } : {}), ...(request.cookies ? { cookies: request.cookies } : {}), ...(request.body !== undefined ? { body: request.body } : {}) };
  // Every class of input that breaks servers is sent (up to CLASS_LIMIT); --max-examples is the phase's budget
  // per operation, filled with random variation after the classes.
  const max = session.config.maxExamples ?? DEFAULT_MAX_EXAMPLES;
  const all = coverageRequests(op, positive, random, CLASS_LIMIT + max);
  const classes = all.filter((i) => i.class !== 'random').slice(0, CLASS_LIMIT);
  const items: CoverageItem[] = [...classes, ...all.filter((i) => i.class === 'random').slice(0, Math.max(0, max - classes.length))];
  if (items.length === 0) return run.skipped('the contract shows no constraint to vary in this request');
  const { sent } = await runCoverage(run, request, items);
  if (sent === 0) return run.skipped('no coverage request was sent');
  return replayed(session, run, run.result({ evidenceOnly: true }));
}
