/**
 * Which requests a case sends, by phase:
 *  - examples: presence, the positive request (and its media types, the examples' own cases), the auth matrix
 *    and the negative cases: one request each, judged with its intent;
 *  - coverage: the deterministic classes of inputs that break servers, then boundary variation (coverage.ts);
 *  - fuzzing: random schema-valid requests, shrunk on a failure (fuzzing.ts);
 *  - stateful: update persisted, use after delete, created record readable, ownership, and sequences: the
 *    call on records made for it, then again (stateful.ts); a refused create, then the reads that would show
 *    what it stored (refused-create.ts); a collection's records deleted, then its list again (empty-collection.ts).
 * A case waits on a record of the run only when its check is about that record (positive, stateful); the
 * others take a record the run has where one is at hand, else values from the pool or of the parameter's type.
 */
import type { CaseResult } from '../../model.ts';
import { FUZZ_CASE, pathParamNames, SEQUENCE_CASE } from '../../plan/cases.ts';
import { onPath } from '../../plan/operation-index.ts';
import { secretFieldValues } from '../flow-secrets.ts';
import { runPaging } from './paging.ts';
import { judge } from '../judge.ts';
import { ATTEMPTS, combineAttempts, repeatPolicy } from '../repeat.ts';
import type { CallRequest } from '../request-builder.ts';
import type { PhaseContext } from './host.ts';
import { Skip } from '../skip.ts';
import { accepts } from '../../plan/accepts.ts';
import { alignBodyToPath, fillReferences, madeUpNames, unshownRules, type Doubts } from '../records/references.ts';
import { resolveTemplates } from '../templates.ts';
import type { CaseRun } from '../case-run.ts';
import { runFunctionAccess, runObjectAccess } from './access.ts';
import { runCoveragePhase } from './coverage-phase.ts';
import { runFuzzingPhase } from './fuzzing.ts';
import { runPresence } from './presence.ts';
import { runCreatedReadable, runLifecycle, runOwnership, runSequences } from './stateful.ts';
import { runMassAssignment } from './mass-assignment.ts';
import { runRefusedCreate } from './refused-create.ts';
import { runEmptyCollection } from './empty-collection.ts';
import { runEdgeWrites } from './edge-writes.ts';
import { runRepeatedCreate } from './repeated-create.ts';

const UNVERIFIED = 'answered like an unknown route; presence unverified';


/** Cases that need no record of their own: they take one the run has, else any value. */
const ANY_RECORD = new Set(['auth', 'negative', 'coverage']);

export async function runPhase(session: PhaseContext, run: CaseRun, secrets: string[]): Promise<CaseResult> {
  const { planned, op } = run;
  const omitted = planned.omits;
  if (omitted?.in === 'header' && session.config.client?.headers.some((h) => h.name.toLowerCase() === omitted.name.toLowerCase())) {
    return run.skipped(`the header ${omitted.name} goes with every request (-H), so it cannot be left out`);
  }
  const probe = await session.presence.probe(op, planned);
  if (planned.kind === 'presence') return runPresence(session, run, probe);
  const presence = probe.response ? (await session.presence.presenceOf(op, probe)).state : undefined;
  if (presence === 'missing') return run.skipped('the operation is missing from the deployment (see its presence case)', 'missing');
  // Served or not, no one can tell (presence unverified): its answers that look like an unknown route's show
  // nothing of the operation, so the phases that judge many of them do not run.
  if (presence === 'unverified' && planned.kind === 'coverage') return run.skipped(UNVERIFIED, 'unverified');
  try {
    return await runRequests(session, run, secrets, presence);
  } catch (error) {
    // No record could be had, and the route answers like an unknown one: that is what the case shows.
    if (error instanceof Skip && presence === 'unverified' && (error.kind === 'setup-failed' || error.kind === 'no-producer')) throw new Skip('unverified', UNVERIFIED);
    throw error;
  }
}

/** A case's request as sent: its path values, body and query resolved; what it names that the run did not get. */
type CaseRequest = CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> };

async function runRequests(session: PhaseContext, run: CaseRun, secrets: string[], presence: string | undefined): Promise<CaseResult> {
  const { planned, op } = run;
  if (planned.expectation === 'ownership') return runOwnership(session, run);
  if (planned.expectation === 'edge-writes') return runEdgeWrites(session, run);
  if (planned.expectation === 'repeated-create') return runRepeatedCreate(session, run);

  const { request, doubts } = await caseRequest(session, run, secrets);
  if (planned.expectation === 'object-access') return runObjectAccess(session, run, request);
  if (planned.expectation === 'function-access') return runFunctionAccess(session, run, request);
  if (planned.expectation === 'created-readable') return runCreatedReadable(session, run, request);
  if (planned.expectation === 'mass-assignment') return runMassAssignment(session, run, request);
  if (planned.expectation === 'refused-create') return runRefusedCreate(session, run, request);
  if (planned.expectation === 'empty-collection') return runEmptyCollection(session, run, request);
  if (planned.expectation === 'paging') return runPaging(session, run, request);
  if (planned.name === SEQUENCE_CASE) return runSequences(session, run, request);
  if (planned.kind === 'lifecycle') return runLifecycle(session, run, request, doubts);
  if (planned.kind === 'coverage') return planned.name === FUZZ_CASE ? runFuzzingPhase(session, run, request, doubts) : runCoveragePhase(session, run, request, doubts);
  return runExamples(session, run, secrets, presence, request, doubts);
}

/** The case's request (its setup steps run, its records made) and the doubts about what it names. */
async function caseRequest(session: PhaseContext, run: CaseRun, secrets: string[]): Promise<{ request: CaseRequest; doubts: Doubts }> {
  const { planned, op } = run;
  const steps = await session.fixtures.runSetup(planned.request.setup, run);
  const scope = session.fixtures.scope(steps, secrets);
  const ids = await recordIds(session, run);
  const pathParams = { ...session.fixtures.pathValues(op, planned.kind), ...ids, ...planned.request.pathParams };
  // A body field named like a path parameter names the same record (a negative case's body stays as planned).
  const resolved = await resolveTemplates(planned.request.body, scope);
  // A field that names another record takes one the run has seen where it can (a negative case's body stays as planned).
  const body = planned.kind === 'negative' ? resolved : alignBodyToPath(op, fillReferences(op, resolved, planned.request.body, (name) => session.pool.forReference(name), accepts), pathParams);
  const query = (await resolveTemplates(planned.request.query, scope)) as Record<string, unknown>;
  // A positive call sends the real secret in its secret fields (a negative one sends a wrong value).
  if (planned.kind === 'positive') secrets.push(...secretFieldValues(body, session.judging.profileOf(op).secretFields ?? []));
  const request: CaseRequest = {
    pathParams,
    query,
    body,
    auth: planned.request.auth,
    ...(planned.request.rawBody ? { rawBody: planned.request.rawBody } : {}),
    ...(planned.request.headers ? { headers: planned.request.headers } : {}),
    ...(planned.request.cookies ? { cookies: planned.request.cookies } : {}),
    ...(planned.request.contentType ? { contentType: planned.request.contentType } : {}),
  };
  return { request, doubts: doubtsOf(session, run, ids) };
}

/**
 * What the run got from the service (the records it made, the values answers held): a valid request that names
 * anything else may be refused for that record alone.
 */
function doubtsOf(session: PhaseContext, run: CaseRun, ids: Record<string, string>): Doubts {
  const { planned, op } = run;
  // A value of another shape the route took is served, but made up: nothing shows that a record holds it.
  const taken = session.presence.routeTaken(op);
  const fromService = new Set(Object.entries(ids).filter(([name, value]) => taken?.[name] !== value).map(([, value]) => value));
  const known = {
    path: (name: string, value: string) => fromService.has(value) || session.pool.values(op, name).includes(value),
    // A nested object's bare `id` names no collection: any answer that held the value will do.
    reference: (name: string, value: string) => fromService.has(value) || session.pool.forReference(name).includes(value) || (/^(id|uuid)$/i.test(name) && session.pool.seen(value)),
  };
  return (sent) => {
    const named = madeUpNames(sent, planned.request.body, known);
    const unshown = unshownRules(op, sent, planned.request.body);
    return { ...(named.length > 0 ? { madeUpReferences: named } : {}), ...(unshown.length > 0 ? { unshown } : {}) };
  };
}

/** The examples phase: one request, judged with what it means; a positive one repeated by the repeat policy. */
async function runExamples(session: PhaseContext, run: CaseRun, secrets: string[], presence: string | undefined, request: CaseRequest, doubts: Doubts): Promise<CaseResult> {
  const { planned, op } = run;
  const exchange = await run.send(op, request, { intent: true });
  if (presence === 'unverified' && (await session.presence.looksUnknown(op, exchange))) return run.skipped(UNVERIFIED, 'unverified');
  const references: ReturnType<Doubts> & { gone?: string[] } = planned.kind === 'positive' ? doubts(request) : {};
  // A record the run got from the service and that is not found now may have been deleted since (by the run's own
  // deletes, a cascade among them, or by someone else): a read of the same path tells.
  if (planned.kind === 'positive' && (exchange.response?.status === 404 || exchange.response?.status === 410) && references.madeUpReferences === undefined) {
    const gone = await goneRecord(session, run, request.pathParams);
    if (gone) references.gone = [gone];
  }
  const judged = run.judgeIntent(exchange, { secrets, caseExchanges: run.exchanges, ...references });
  const first = run.result();
  if (planned.kind !== 'positive') return first;
  // Identical calls that disagree make the operation flaky (the counts are reported).
  const policy = repeatPolicy(op, session.judging.profileOf(op));
  if (policy === 'never' || judged.outcome === 'missing' || judged.outcome === 'errored' || (policy === 'on-failure' && judged.outcome !== 'failed')) return first;
  const attempts: CaseResult[] = [first];
  const answers = [exchange.response];
  while (attempts.length < ATTEMPTS) {
    const again = await session.caller.call(op, request);
    answers.push(again.response);
    run.keep(again);
    const verdict = judge({ operation: op, exchange: again, ...session.judging.judgeInput(op), intent: planned.expectation, expect: planned.expect, secrets, caseExchanges: run.exchanges, ...references });
    attempts.push({ ...first, outcome: verdict.outcome, checks: verdict.checks, findings: verdict.findings });
  }
  return { ...combineAttempts(attempts, answers), exchanges: run.exchanges };
}

/**
 * The path's record as a read of the same path finds it: `{petId} = "1" (GET /pets/{petId} answered 404 too)` where
 * the deployment no longer holds it; undefined where it does, or where no read of the path is described.
 */
async function goneRecord(session: PhaseContext, run: CaseRun, pathParams: Record<string, string>): Promise<string | undefined> {
  const { op } = run;
  // The record the path names: its last parameter's (`/owners/{ownerId}/pets/{petId}`: the pet).
  const last = /\{([^{}]+)\}$/.exec(op.path)?.[1];
  if (op.method === 'GET' || last === undefined || pathParams[last] === undefined) return undefined;
  const read = onPath(session.contract, op.service, op.path).find((o) => o.method === 'GET');
  if (!read) return undefined;
  const answer = await session.caller.call(read, { pathParams, query: {}, auth: 'valid' }).catch(() => undefined);
  if (!answer) return undefined;
  run.keep(answer);
  const status = answer.response?.status;
  if (status !== 404 && status !== 410) return undefined;
  return `{${last}} = ${JSON.stringify(pathParams[last])} (${read.method} ${read.path} answered ${status} too: the deployment no longer holds it)`;
}

/**
 * The records a case's path names: a record the run makes for the positive and stateful cases (they are about
 * it); for auth, negative and coverage cases one the run has made where it can be had, else none (their path
 * values then come from the pool or the parameter's type: they never wait on a create that failed).
 */
async function recordIds(session: PhaseContext, run: CaseRun): Promise<Record<string, string>> {
  const { planned, op } = run;
  if (planned.fixture === 'none' || pathParamNames(op).length === 0) return {};
  try {
    return await session.fixtures.fixture(op, planned.fixture === 'fresh', run);
  } catch (error) {
    if (error instanceof Skip && ANY_RECORD.has(planned.kind)) return {};
    throw error;
  }
}
