/**
 * The stateful phase: chains about a record the run made. Update persisted (PUT, then read back), use after
 * delete (DELETE, then read again and list), created record readable (a create, then its readers) and
 * ownership (records under two parents, each read under its own parent only). Every answer of the chain is
 * judged (the reads as answers of their own operations); the intent check judges the chain.
 */
import type { RelatedRead } from '../../checks/types.ts';
import type { CaseResult, Exchange, Operation } from '../../model.ts';
import { pathParamNames, positiveBody, readerOf } from '../../plan/cases.ts';
import { Random } from '../../plan/random.ts';
import { listOf, notAcceptedOnUpdate } from '../../plan/relations.ts';
import type { CaseRun } from '../case-run.ts';
import { readCreated, readOwnership, RelationUnmet, type RelationsHost } from '../relations-run.ts';
import type { CallRequest } from '../request-builder.ts';
import type { Session } from '../session.ts';
import { Skip } from '../skip.ts';
import { resolveTemplates } from '../templates.ts';

function is2xx(e: Exchange): boolean {
  return e.response !== undefined && e.response.status >= 200 && e.response.status < 300;
}

/** What the relation chains need of the session, each call made as part of the case. */
function relationsHost(session: Session, run: CaseRun): RelationsHost {
  return {
    contract: session.contract,
    call: (op, request) => run.send(op, request),
    freshIds: (op) => session.fixture(op, true, run),
    positiveBody: (op) => resolveTemplates(positiveBody(op, session.examples, new Random(`${session.config.seed}:${op.operationId}:related`)), session.scope({})),
  };
}

async function related<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RelationUnmet) throw new Skip('setup-failed', error.message);
    throw error;
  }
}

export async function runOwnership(session: Session, run: CaseRun): Promise<CaseResult> {
  const reads = await related(() => readOwnership(relationsHost(session, run), run.op, []));
  if (!reads[0]) return run.skipped(`${run.op.operationId} could not be read`);
  run.judgeIntent(reads[0].exchange, { reads });
  return run.result();
}

export async function runCreatedReadable(session: Session, run: CaseRun, request: CallRequest & { pathParams: Record<string, string> }): Promise<CaseResult> {
  const action = await run.send(run.op, request, { intent: true });
  const reads = await related(() => readCreated(relationsHost(session, run), run.op, request.pathParams, request.body, action, []));
  run.judgeIntent(action, { reads });
  return run.result();
}

/** update: PUT then read back; delete: DELETE then read again (and list). */
export async function runLifecycle(session: Session, run: CaseRun, request: CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> }): Promise<CaseResult> {
  const { op } = run;
  const reader = readerOf(session.contract, op);
  if (!reader) return run.skipped(`no GET ${op.path} to read the record back`);
  const before = await run.send(reader, { pathParams: request.pathParams });
  if (!is2xx(before)) return run.skipped(`${reader.operationId} answered ${before.response?.status ?? before.error?.message} before the ${op.method}`);
  const sent = op.method === 'PUT' ? changedBody(request.body, before.response?.json) : undefined;
  // Fields the update does not accept go along, changed: they must be neither applied nor required.
  const notAccepted = op.method === 'PUT' ? notAcceptedOnUpdate(op, reader, before.response?.json) : {};
  const extra = changedBody(notAccepted, notAccepted) as Record<string, unknown>;
  const toSend = sent !== undefined && Object.keys(extra).length > 0 && typeof sent === 'object' ? { ...extra, ...(sent as object) } : sent;
  const action = await run.send(op, { ...request, ...(toSend !== undefined ? { body: toSend } : {}) }, { intent: true });
  if (!is2xx(action)) {
    run.judgeResponse(action);
    return run.skipped(`${op.operationId} answered ${action.response?.status ?? action.error?.message} (see its positive case)`);
  }
  const after = await run.send(reader, { pathParams: request.pathParams });
  if (!after.response) return { ...run.result(), outcome: 'errored', errorMessage: after.error?.message ?? 'no response' };
  // The chain judges through the reader: a reader that does not conform cannot vouch for the update.
  const untrusted = [before, ...(op.method === 'PUT' ? [after] : [])].find((e) => !session.conforms(reader, e));
  if (untrusted) {
    run.judgeResponse(action);
    return run.skipped(`${reader.operationId} does not conform (see its cases), so it cannot show whether ${op.operationId} worked`);
  }
  // A deleted record is gone from its parent's list too.
  const list = op.method === 'DELETE' ? listOf(session.contract, op) : undefined;
  const reads: RelatedRead[] = [];
  const deletedId = pathParamNames(op).at(-1);
  if (list && deletedId) {
    const listed = await run.send(list, { pathParams: request.pathParams });
    if (listed.response) reads.push({ operation: list, role: 'list', exchange: listed as RelatedRead['exchange'], id: request.pathParams[deletedId] ?? '', parentIds: request.pathParams });
  }
  run.judgeIntent(action, { lifecycle: { ...(sent !== undefined ? { sent } : {}), readBack: after as NonNullable<import('../../checks/types.ts').CheckContext['lifecycle']>['readBack'], ...(Object.keys(notAccepted).length > 0 ? { notAccepted } : {}) }, reads });
  return run.result();
}

/** The update body with every value made different from what the record holds now (so a no-op update shows). */
function changedBody(body: unknown, current: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const now = (typeof current === 'object' && current !== null ? current : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (now[k] !== v) out[k] = v;
    else if (typeof v === 'boolean') out[k] = !v;
    else if (typeof v === 'number') out[k] = v + 1;
    else if (typeof v === 'string') out[k] = `${v}-changed`;
    else out[k] = v;
  }
  return out;
}

export type { Operation };
