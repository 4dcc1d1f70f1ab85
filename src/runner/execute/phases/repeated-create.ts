/**
 * A create sent twice, and a second record (the targets: plan/repeated-create.ts). A valid body is created (up to
 * three tried, makeRecord), then sent again as it was: the repeat's answer is judged as any answer of the create
 * (a server error, an undocumented status or body is the create's finding, its message led by what came before).
 * A repeat refused says the body holds a value the deployment keeps unique: a second record is made with a body
 * drawn anew, and each update of the first record is sent the second's values (its own valid body, else the record
 * as the create answered it: a schema-valid request; a refusal is the deployment's right, a server error a finding
 * of the update). Then the collection's list, holding both records, is asked for in each media type its successes
 * declare. Every record made goes into the clean-up (the case's POSTs are settled).
 */
import { isDeepStrictEqual } from 'node:util';
import { isIrreversible } from '../../description/profile.ts';
import type { CaseResult, Exchange, Operation } from '../../model.ts';
import { responseMediaTypes } from '../../plan/accept-header.ts';
import { accepts } from '../../plan/accepts.ts';
import { factsOf, mergedShape } from '../../plan/keywords.ts';
import { requiredParams } from '../../plan/parameters.ts';
import { Random } from '../../plan/random.ts';
import { largestPage } from '../../plan/refused-create.ts';
import { repeatTargets, type RepeatTargets } from '../../plan/repeated-create.ts';
import type { CaseRun } from '../case-run.ts';
import { answeredId } from '../records/in-answer.ts';
import { is2xx, type Answered, type JudgeNote } from '../judge.ts';
import { answeredCandidates, namedCandidate } from '../records/candidates.ts';
import { alignBodyToPath } from '../records/references.ts';
import type { CallRequest } from '../request-builder.ts';
import { Skip } from '../skip.ts';
import type { PhaseContext } from './host.ts';

type Params = Record<string, string>;
type Body = Record<string, unknown>;

export async function runRepeatedCreate(session: PhaseContext, run: CaseRun): Promise<CaseResult> {
  const { op } = run;
  const allowed = (w: Operation) => session.config.allowIrreversible || !isIrreversible(session.judging.profileOf(w), w.operationId);
  const targets = repeatTargets(session.contract, op, allowed);
  if (!targets) return run.skipped(`${op.operationId} is no create with a JSON object body`, 'not-applicable');
  // The create's parents (shared with its other cases); its own required query and header values.
  const pathParams = /\{[^{}]+\}/.test(op.path) ? await session.fixtures.fixture(op, false, run) : {};
  const request = { pathParams, ...declared(session, op) };
  const first = await makeRecord(session, run, request, 'first');
  if (typeof first === 'string') return run.skipped(first, first.startsWith('no ') ? 'no-request' : 'setup-failed');
  const { body, made } = first;
  const again = await run.send(op, { ...request, body }, { note: { text: `Sent again the body ${where(op)} had just answered ${made.response.status} to` } });
  if (!again.response) return run.result();
  let other: { body: Body; id: string | undefined } | undefined;
  if (!is2xx(again)) {
    // A value of the body is kept unique: a record with values of its own, to give the first one.
    const second = await makeRecord(session, run, request, 'second', { text: `A second record, after ${where(op)} refused the same body again (${again.response.status})` });
    if (typeof second === 'string') return run.result();
    other = { body: second.body, id: recordId(second.made, targets) };
  }
  const firstId = recordId(made, targets);
  if (other !== undefined && firstId !== undefined) {
    for (const update of targets.updates) await sendOthersValues(session, run, update, { ...pathParams, [targets.param]: firstId }, other.body, made.response.json);
  }
  if (targets.list) await listBoth(session, run, targets.list, pathParams);
  return run.result();
}

/** An operation's required header and query values (what its calls here send besides path and body). */
function declared(session: PhaseContext, op: Operation): Pick<CallRequest, 'query' | 'headers'> {
  return requiredParams(op, new Random(`${session.config.seed}:${op.operationId}:repeated-create`));
}

function where(op: Operation): string {
  return `${op.method} ${op.path}`;
}

/** Bodies tried for one record at most. */
const RECORD_TRIES = 3;

/**
 * A record of the create: valid bodies tried in turn until one is answered with success, at most RECORD_TRIES: one
 * drawn for the purpose (the example's, its setup run), the same with each string of no format whose name suggests
 * one set to a value of it (`email`: an address; a rule the contract does not show), the newest body the create
 * took in this run with its unique-looking text drawn afresh. Each answer is judged as the create's. Why none was
 * made, when none was.
 */
async function makeRecord(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Params }, purpose: string, note?: JudgeNote): Promise<{ body: Body; made: Answered } | string> {
  const { op } = run;
  const random = new Random(`${session.config.seed}:${op.operationId}:repeated-create:${purpose}:candidates`);
  const base = await drawn(session, run, op, request.pathParams, purpose);
  const answered = answeredCandidates(op, session.fixtures.answeredBodies(op), random).slice(0, 1).map((c) => alignBodyToPath(op, c.body, request.pathParams));
  const bodies: Body[] = [];
  for (const body of [base, base && namedCandidate(op, base, random)?.body, ...answered]) {
    if (isBody(body) && !bodies.some((b) => isDeepStrictEqual(b, body))) bodies.push(body);
  }
  let last: Exchange | undefined;
  for (const body of bodies.slice(0, RECORD_TRIES)) {
    last = await run.send(op, { ...request, body }, note ? { note } : {});
    if (is2xx(last)) return { body, made: last };
  }
  if (last === undefined) return 'no valid body of the create could be built';
  return `${where(op)} answered ${last.response?.status ?? last.error?.message ?? 'nothing'} to each of ${bodies.slice(0, RECORD_TRIES).length} valid bodies: there was no record to create again`;
}

function isBody(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A valid body of a write for these path values, drawn for its purpose; undefined when none can be built. */
async function drawn(session: PhaseContext, run: CaseRun, write: Operation, pathParams: Params, purpose: string): Promise<Body | undefined> {
  try {
    const random = new Random(`${session.config.seed}:${write.operationId}:repeated-create:${purpose}`);
    const body = alignBodyToPath(write, await session.fixtures.recordBody(write, random, run), pathParams);
    return isBody(body) ? body : undefined;
  } catch (error) {
    if (error instanceof Skip) return undefined;
    throw error;
  }
}

function recordId(exchange: Exchange, targets: RepeatTargets): string | undefined {
  return answeredId(exchange, targets.param, targets.item);
}

/**
 * An update of the first record with the second record's values: the update's own valid body, else the first record
 * as the create answered it (an update schema may require what the create's does not), with every property both
 * have set to the second's value; not sent when neither makes a body valid for the update.
 */
async function sendOthersValues(session: PhaseContext, run: CaseRun, update: Operation, pathParams: Params, others: Body, record: unknown): Promise<void> {
  const listed = factsOf(mergedShape(update.requestBody!.schema)).properties;
  const taken = Object.keys(others).filter((name) => name in listed && others[name] !== undefined && !(name in pathParams));
  if (taken.length === 0) return;
  const values = Object.fromEntries(taken.map((name) => [name, others[name]]));
  const drawnBase = await drawn(session, run, update, pathParams, 'update');
  const body = [drawnBase, isBody(record) ? record : undefined]
    .map((base) => (base === undefined ? undefined : { ...base, ...values }))
    .find((b) => b !== undefined && accepts(update.requestBody!.schema, b) !== false);
  if (body === undefined) return;
  await run.send(update, { pathParams, ...declared(session, update), body }, { note: { text: `Sent the first of two records ${where(run.op)} made the second one's values (${taken.join(', ')})` } });
}

/** The collection's list (its largest first page) with both records in it, asked for in each declared success media type alone. */
async function listBoth(session: PhaseContext, run: CaseRun, list: Operation, pathParams: Params): Promise<void> {
  const { query, headers } = declared(session, list);
  const types = responseMediaTypes(list).success;
  for (const type of types.length > 0 ? types : [undefined]) {
    const note = { text: `With two records ${where(run.op)} made in the collection${type === undefined ? '' : `, asked for ${type}${types.length > 1 ? ' alone' : ''}`}` };
    await run.send(list, { pathParams, query: { ...query, ...largestPage(list) }, headers: { ...headers, ...(type === undefined ? {} : { accept: type }) } }, { note });
  }
}
