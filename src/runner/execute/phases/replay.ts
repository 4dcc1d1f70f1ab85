/**
 * A finding from a generated request (coverage, fuzzing) is replayed alone before it is reported: the same
 * request is sent once more and judged. When the replay does not fail the same way, the finding says so and
 * the case is flaky (it depends on order or concurrency), with the counts.
 */
import type { CaseResult, Exchange } from '../../model.ts';
import type { CaseRun } from '../case-run.ts';
import { judge } from '../judge.ts';
import type { PhaseContext } from './host.ts';

const NOT_REPRODUCED = 'did not fail when sent again alone: depends on order or concurrency';

/** Methods that change nothing when sent (RFC 9110 §9.2.1; QUERY by its draft): a served one can be sent again. */
const REPEATABLE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'QUERY']);

export async function replayed(session: PhaseContext, run: CaseRun, result: CaseResult): Promise<CaseResult> {
  if (result.outcome !== 'failed') return result;
  const shown: Exchange | undefined = run.evidence.firstFailing();
  const origin = shown ? run.requestOf(shown) : undefined;
  if (!shown || !origin || origin.op.operationId !== run.op.operationId) return result;
  const first = result.findings.find((f) => f.severity === 'error');
  // An undocumented unsafe method the deployment served (a DELETE answered 204) changed what the path names: sent
  // again it would act once more, and be answered about another state (the record gone).
  if (first?.check === 'hidden-endpoint' && !REPEATABLE.has(shown.request.method.toUpperCase())) return result;
  const again = await session.caller.call(origin.op, origin.request);
  // Judged as the request was (a variation as a negative, a method the path does not document by its own check).
  const { coverage: _label, ...intent } = run.intentOf(shown) ?? {};
  const verdict = judge({ operation: run.op, exchange: again, ...session.judging.judgeInput(run.op), ...intent });
  const reproduced = verdict.findings.some((f) => f.severity === 'error' && f.check === first?.check) || (again.response === undefined && again.error?.kind !== 'timeout');
  if (reproduced) return result;
  return {
    ...result,
    outcome: 'flaky',
    flaky: { attempts: 2, failed: 1 },
    findings: result.findings.map((f) => (f === first ? { ...f, message: `${f.message} It ${NOT_REPRODUCED}.` } : f)),
    exchanges: [...result.exchanges, again],
  };
}
