/**
 * A collection asked empty (planned in plan/empty-collection.ts; the scheduler runs a top-level one after every other case, a nested one, on a parent made for it, among them). A
 * record of the collection is made first (under a parent made for the case where the collection is nested), so the
 * collection held one of the run's. Then, in one delete chain (the service's creates held back): the run's own
 * records of the collection are deleted (those the cleanup ledger holds: each DELETE that succeeds ticks its record
 * off); with --allow-irreversible the records the list serves too (its largest first page, at most EMPTYING_BUDGET
 * the run did not make, listed again while it shows others), and then the list is asked again. That answer is judged
 * as any answer of the list, its findings saying what was deleted before it; a list that still serves records says
 * nothing of an empty one (the case says so, untested).
 */
import type { CaseResult, Exchange, Operation } from '../../model.ts';
import { listedIds, listRecords } from '../../checks/created-resource-readable.ts';
import { collectionOperations, EMPTYING_BUDGET, type CollectionOperations } from '../../plan/empty-collection.ts';
import { requiredParams } from '../../plan/parameters.ts';
import { Random } from '../../plan/random.ts';
import { largestPage } from '../../plan/refused-create.ts';
import { idNames, idText } from '../../plan/resources.ts';
import { undoPathParams } from '../../plan/undo.ts';
import type { CaseRun } from '../case-run.ts';
import { is2xx, judgedUnanswered, type Judgement } from '../judge.ts';
import { alignBodyToPath } from '../records/references.ts';
import type { CallRequest } from '../request-builder.ts';
import { Skip } from '../skip.ts';
import type { PhaseContext } from './host.ts';

/** What the case deleted before its last list, by record id. */
interface Emptied {
  /** The run's own records of the collection (the ledger's), and those of them whose DELETE removed them. */
  own: Set<string>;
  ownGone: number;
  /** Ids the lists before the last one served, and the ids whose DELETE removed the record (or found it gone). */
  served: Set<string>;
  gone: Set<string>;
}

export async function runEmptyCollection(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string> }): Promise<CaseResult> {
  const { op } = run;
  const ops = collectionOperations(session.contract, session.judging.profileOf(op), op);
  if (!ops) return run.skipped(`no create and DELETE by id of the records ${op.path} lists`, 'not-applicable');
  const parent = request.pathParams;
  await makeRecord(session, run, ops.create, parent);
  const all = session.config.allowIrreversible;
  const { last, emptied } = await session.caller.deleteChain(ops.delete, () => emptyAndList(session, run, ops, parent, all));
  return judgeLast(run, last, emptied, { all, nested: Object.keys(parent).length > 0, idParam: ops.idParam });
}

/** One record of the collection, made by its create (a create refused or unanswered leaves the case to what the run holds). */
async function makeRecord(session: PhaseContext, run: CaseRun, create: Operation, parent: Record<string, string>): Promise<void> {
  const random = new Random(`${session.config.seed}:${create.operationId}:empty-collection`);
  let body: unknown;
  try {
    body = create.requestBody ? alignBodyToPath(create, await session.fixtures.recordBody(create, random, run), parent) : undefined;
  } catch (error) {
    if (error instanceof Skip) return;
    throw error;
  }
  await run.send(create, { pathParams: parent, ...requiredParams(create, random), ...(body !== undefined ? { body } : {}) });
}

/** The list's largest first page, with its required parameters only (no optional filter narrows it). */
function listRequest(session: PhaseContext, list: Operation, parent: Record<string, string>): CallRequest {
  const required = requiredParams(list, new Random(`${session.config.seed}:${list.operationId}:empty-collection`));
  return { pathParams: parent, ...required, query: { ...required.query, ...largestPage(list) } };
}

/** The ids of the records a list answer serves (each record's id, by the names its DELETE's parameter goes by). */
function servedIds(exchange: Exchange, idParam: string): string[] {
  if (!is2xx(exchange)) return [];
  return listRecords(exchange.response.json).flatMap((record) => {
    const id = idNames(idParam).map((name) => idText(record[name])).find((v) => v !== undefined);
    return id === undefined ? [] : [id];
  });
}

/**
 * The deletes, then the list: the run's own records; with --allow-irreversible, before them the list and after them
 * the records it served, listed again while it shows records not yet tried (within the budget). Every list but the
 * last is judged here; the last is returned unjudged.
 */
async function emptyAndList(session: PhaseContext, run: CaseRun, ops: CollectionOperations, parent: Record<string, string>, all: boolean): Promise<{ last: Exchange; emptied: Emptied }> {
  const list = () => run.send(run.op, listRequest(session, run.op, parent), { intent: true });
  const first = all ? await list() : undefined;
  const own = session.ledger.ownRecords(ops.create, parent);
  const emptied: Emptied = { own: new Set(own.flatMap((r) => (r.id !== undefined ? [r.id] : []))), ownGone: 0, served: new Set(), gone: new Set() };
  const ownGone = await deleteAll(session, run, own.map((r) => r.undo));
  own.forEach((r, i) => {
    if (!ownGone[i]) return;
    emptied.ownGone++;
    if (r.id !== undefined) emptied.gone.add(r.id);
  });
  const tried = new Set(emptied.own);
  let budget = EMPTYING_BUDGET;
  let shown = first;
  for (;;) {
    if (shown) {
      run.judgeResponse(shown);
      for (const id of servedIds(shown, ops.idParam)) emptied.served.add(id);
      const ids = servedIds(shown, ops.idParam).filter((id) => !tried.has(id)).slice(0, budget);
      budget -= ids.length;
      ids.forEach((id) => tried.add(id));
      const gone = await deleteAll(session, run, ids.map((id) => ({ operation: ops.delete, pathParams: undoPathParams(ops.create, ops.delete, ops.idParam, parent, id) })));
      ids.forEach((id, i) => {
        if (gone[i]) emptied.gone.add(id);
      });
    }
    const last = await list();
    const more = all && budget > 0 && servedIds(last, ops.idParam).some((id) => !tried.has(id));
    if (!more) return { last, emptied };
    shown = last;
  }
}

/** Sends the DELETEs, as many at a time as the run's concurrency, kept in the order given; whether each record is gone. */
async function deleteAll(session: PhaseContext, run: CaseRun, calls: Array<{ operation: Operation; pathParams: Record<string, string> }>): Promise<boolean[]> {
  const gone: boolean[] = [];
  const step = Math.max(1, session.config.concurrency);
  for (let at = 0; at < calls.length; at += step) {
    const batch = calls.slice(at, at + step);
    const answers = await Promise.all(batch.map(({ operation, pathParams }) => run.send(operation, { pathParams, ...deleteParams(session, operation) }, { keep: false })));
    for (const exchange of answers) {
      run.keep(exchange);
      const status = exchange.response?.status;
      gone.push(status !== undefined && ((status >= 200 && status < 300) || status === 404 || status === 410));
    }
  }
  return gone;
}

function deleteParams(session: PhaseContext, del: Operation): Pick<CallRequest, 'query' | 'headers'> {
  return requiredParams(del, new Random(`${session.config.seed}:${del.operationId}:empty-collection`));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What was deleted before the last list, in words (undefined when nothing was). */
function emptiedWords(e: Emptied, all: boolean, nested: boolean): string | undefined {
  const where = nested ? ' under a parent record made for the case' : '';
  const served = [...e.served].filter((id) => e.gone.has(id));
  if (all && served.length > 0) {
    const ownServed = served.filter((id) => e.own.has(id)).length;
    const unlisted = e.ownGone - ownServed;
    return `Asked with the collection${where} emptied: after deleting the ${plural(served.length, 'record')} the list served (${ownServed} the run's own)${unlisted > 0 ? ` and ${unlisted} more of the run's own` : ''}.`;
  }
  if (e.ownGone === 0) return undefined;
  const kept = all ? ' (the list had served none)' : ' (without --allow-irreversible the run keeps the records it did not make)';
  return `Asked after deleting the run's own ${plural(e.ownGone, 'record')} of the collection${where}${kept}.`;
}

/** The last list, judged as any answer of the list (its findings say what was deleted before it); one that still serves records reaches no empty collection. */
function judgeLast(run: CaseRun, last: Exchange, emptied: Emptied, { all, nested, idParam }: { all: boolean; nested: boolean; idParam: string }): CaseResult {
  if (!last.response) {
    if (judgedUnanswered(last)) run.judgeResponse(last);
    else run.unanswered(last);
    return run.result();
  }
  const left = is2xx(last) ? listedIds(last.response.json).length : 0;
  if (left > 0) {
    run.judgeResponse(last);
    const ownLeft = servedIds(last, idParam).filter((id) => emptied.own.has(id)).length;
    const why = all
      ? `at most ${EMPTYING_BUDGET} records the run did not make are deleted, and pages past the first are not followed`
      : 'without --allow-irreversible the run deletes only its own records';
    return run.skipped(`${run.op.method} ${run.op.path} still lists ${plural(left, 'record')}${ownLeft > 0 ? ` (${ownLeft} the run's own, not removed by their DELETE)` : ''} after the deletes (${why}): the empty collection was not reached`, 'not-applicable');
  }
  const words = emptiedWords(emptied, all, nested);
  run.judgeResponse(last, {}, (j: Judgement) => (words ? { ...j, findings: j.findings.map((f) => ({ ...f, message: `${f.message} ${words}` })) } : j));
  return run.result();
}
