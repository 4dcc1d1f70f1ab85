/**
 * A refused create leaves nothing behind (WFC 104; the request is planned in plan/refused-create.ts). The reads
 * that would show a stored record are asked first: a record an earlier run with the same seed left carries the same
 * marker, and is not taken for this run's. Then the create, with a valid body that carries the marker and one
 * must-reject change; only when it is refused (4xx) the reads again: the collection's list (its largest first
 * page) and the record the refusal names (its body or Location; a PUT's own id). The marker, never a count, tells
 * the record apart from those other cases make meanwhile. The intent check judges the refusal with those reads; a
 * record they show goes into the clean-up.
 */
import { storedRecords } from '../../checks/failed-create-no-side-effects.ts';
import type { RelatedRead } from '../../checks/types.ts';
import type { CaseResult, Exchange, Operation } from '../../model.ts';
import { parameterValues, stringValues } from '../../plan/parameters.ts';
import { Random } from '../../plan/random.ts';
import { largestPage, refusedBody, refusedCreateReads, refusedMarker, wouldBeId, type RefusedCreateReads } from '../../plan/refused-create.ts';
import { createdId } from '../../plan/resources.ts';
import { idFromLocation } from '../../plan/undo.ts';
import type { CaseRun } from '../case-run.ts';
import { judgedUnanswered } from '../judge.ts';
import { alignBodyToPath } from '../records/references.ts';
import type { CallRequest } from '../request-builder.ts';
import type { PhaseContext } from './host.ts';

type Tag = NonNullable<RelatedRead['refused']>;

function pathOf(e: Exchange): string {
  return `${e.request.method} ${new URL(e.request.url).pathname}`;
}

export async function runRefusedCreate(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string> }): Promise<CaseResult> {
  const { op } = run;
  const targets = refusedCreateReads(session.contract, op);
  if (!targets) return run.skipped(`no read shows the records ${op.operationId} creates`, 'not-applicable');
  const random = new Random(`${session.config.seed}:${op.operationId}:refused-create`);
  const marker = refusedMarker(random);
  const put = targets.putParam;
  const ownId = put !== undefined ? wouldBeId(op, put, marker, random) : undefined;
  if (put !== undefined && ownId === undefined) return run.skipped(`no value of {${put}} could be built that names no record`, 'no-request');
  const pathParams = put !== undefined && ownId !== undefined ? { ...request.pathParams, [put]: ownId } : request.pathParams;
  const valid = alignBodyToPath(op, await session.fixtures.recordBody(op, random, run), pathParams);
  const refused = refusedBody(op, valid, marker, put === undefined);
  if (!refused) return run.skipped('no body could be built that carries a marker in one property and is made invalid in another', 'no-request');
  const tag: Tag = { ...(put === undefined ? { marker } : {}), change: refused.change };

  const before = await lookFor(session, run, targets, pathParams, ownId, tag);
  if (typeof before === 'string') return run.skipped(before, 'setup-failed');
  const early = before.find((read) => storedRecords(read).length > 0);
  if (early) return run.skipped(`${pathOf(early.exchange)} shows a record ${put === undefined ? `carrying the marker ${marker}` : 'of that id'} before the create was sent (left by an earlier run with this seed?): it cannot tell what this one stores`, 'setup-failed');

  const exchange = await run.send(op, { ...request, pathParams, body: refused.body }, { intent: true });
  if (!exchange.response) {
    if (judgedUnanswered(exchange)) run.judgeResponse(exchange);
    else run.unanswered(exchange);
    return run.result();
  }
  const status = exchange.response.status;
  if (status < 400 || status > 499) {
    // A success is negative-data-rejected's to judge (the negative cases send such bodies), a server error not-a-server-error's.
    run.judgeResponse(exchange);
    return run.skipped(`${pathOf(exchange)} answered ${status} to the invalid create (${refused.change}), not a refusal`, 'setup-failed');
  }
  const id = ownId ?? namedId(exchange, targets);
  const after = await lookFor(session, run, targets, pathParams, id, tag);
  if (typeof after === 'string') {
    run.judgeResponse(exchange);
    return run.skipped(after, 'setup-failed');
  }
  if (after.length === 0) {
    run.judgeResponse(exchange);
    return run.skipped(`the refusal named no record, and no list of ${op.path} is described: nothing could show what it stored`, 'not-applicable');
  }
  run.judgeIntent(exchange, { reads: after });
  keepStored(session, op, exchange, pathParams, after, targets);
  return run.result();
}

/**
 * The reads that would show a stored record: the collection's list (when the contract describes one) and the
 * record of `id` (when one is known). A reason instead when the list cannot be read: then nothing can be told.
 */
async function lookFor(session: PhaseContext, run: CaseRun, targets: RefusedCreateReads, pathParams: Record<string, string>, id: string | undefined, tag: Tag): Promise<RelatedRead[] | string> {
  const reads: RelatedRead[] = [];
  if (targets.list && targets.putParam === undefined) {
    const list = targets.list;
    const random = new Random(`${session.config.seed}:${list.operationId}:refused-create`);
    const query = { ...parameterValues(list, 'query', random, 'none'), ...largestPage(list) };
    const headers = stringValues(parameterValues(list, 'header', random, 'none'));
    const exchange = await run.send(list, { pathParams, query, ...(Object.keys(headers).length > 0 ? { headers } : {}) });
    const status = exchange.response?.status;
    if (!exchange.response || status === undefined || status < 200 || status > 299) {
      return `${pathOf(exchange)} answered ${status ?? exchange.error?.message ?? 'nothing'}: no list could show whether a refused create stores its record`;
    }
    reads.push({ operation: list, role: 'list', exchange: exchange as RelatedRead['exchange'], id: '', parentIds: pathParams, refused: tag });
  }
  if (targets.item && id !== undefined) {
    const { operation, param } = targets.item;
    const exchange = await run.send(operation, { pathParams: { ...pathParams, [param]: id } });
    // Unanswered, or a refusal (a 404 for the would-be id): it shows no record.
    if (exchange.response) reads.push({ operation, role: 'item', exchange: exchange as RelatedRead['exchange'], id, parentIds: pathParams, refused: tag });
  }
  return reads;
}

/** The record id a refusal names: in its body (as a create's answer would), else in its Location. */
function namedId(exchange: Exchange, targets: RefusedCreateReads): string | undefined {
  if (!targets.item) return undefined;
  const { operation, param } = targets.item;
  return createdId(exchange.response?.json, param) ?? idFromLocation(exchange.response?.headers['location'], operation);
}

/** The records the reads after the refusal showed: into the clean-up ledger (by their ids where the reads name them). */
function keepStored(session: PhaseContext, op: Operation, exchange: Exchange, pathParams: Record<string, string>, reads: RelatedRead[], targets: RefusedCreateReads): void {
  const ids = new Set<string>();
  let unnamed = false;
  for (const read of reads) {
    for (const record of storedRecords(read)) {
      const id = read.role === 'item' ? read.id : createdId(record, targets.item?.param ?? 'id');
      if (id !== undefined) ids.add(id);
      else unnamed = true;
    }
  }
  if (ids.size > 0 || unnamed) session.ledger.noteStored(op, exchange, pathParams, [...ids]);
}
