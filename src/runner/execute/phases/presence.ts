/**
 * The presence case: the operation's route, asked with values no deployment acts on (a malformed JSON body, a
 * DELETE's ids no record has). Missing only with proof: an answer that cannot be told from the deployment's
 * answer to an unknown route proves the route unknown only when the request named a record known to exist
 * (Session.presenceOf); without one, the operation is present but unverified, a warning.
 */
import type { CaseResult, Exchange } from '../../model.ts';
import type { CaseRun } from '../case-run.ts';
import { jsonRequestType } from '../../plan/accept-header.ts';
import { softenUndocumented } from './coverage.ts';
import type { PhaseContext } from './host.ts';

export async function runPresence(session: PhaseContext, run: CaseRun, probe: Exchange): Promise<CaseResult> {
  const { op } = run;
  run.keep(probe);
  if (!probe.response) {
    run.judgeIntent(probe);
    return run.result();
  }
  const presence = await session.presence.presenceOf(op, probe);
  if (presence.state === 'missing') {
    run.judgeIntent(probe, { unknownRoute: await session.presence.unknownRoute(op) });
    return run.result();
  }
  // Served: its answer is judged as any answer is. Unverified: it may be the gateway's, so it shows nothing of
  // the operation beyond the warning.
  // Its malformed JSON goes in the JSON media type the operation declares; where it declares none (a form), a 415
  // is the right refusal, a warning where the contract does not document it.
  const declaresJson = (op.requestBodies ?? (op.requestBody ? [op.requestBody] : [])).some((b) => b.contentType === jsonRequestType(op));
  if (presence.state === 'present') run.judgeResponse(probe, {}, (j) => (op.requestBody && !declaresJson ? softenUndocumented(op, probe, j, 415) : j));
  if (presence.state === 'present') run.evidence.add(probe, { outcome: 'passed', checks: [{ id: 'operation-present', status: 'passed' }], findings: [] });
  if (presence.state === 'unverified') {
    run.evidence.add(probe, {
      outcome: 'passed',
      checks: [{ id: 'operation-present', status: 'warning' }],
      findings: [
        {
          check: 'operation-present',
          severity: 'warning',
          operationId: op.operationId,
          method: op.method,
          path: op.path,
          message: `present but unverified: ${presence.why}.`,
          expected: 'the route is served',
          actual: probe.response.status,
          specLocation: `${op.specFile}#${op.pointer}`,
        },
      ],
    });
  }
  return run.result();
}
