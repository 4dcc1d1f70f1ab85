/**
 * The stateful phase: chains about a record the run made. Update persisted (PUT, then read back), use after
 * delete (DELETE, then read again and list), created record readable (a create, then its readers) and
 * ownership (records under two parents, each read under its own parent only). Every answer of the chain is
 * judged (the reads as answers of their own operations); the intent check judges the chain.
 * Sequences (runSequences): records made for the call alone, the call, and the same call again. A created record's
 * chain follows the create's Location too (location-serves-record). The update-persisted and created-readable chains
 * end with a write of what the operation must not set, sent apart (mass-assignment.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { RelatedRead } from '../../checks/types.ts';
import { isIrreversible } from '../../description/profile.ts';
import type { CaseResult, Exchange, Finding, JsonSchema, Operation } from '../../model.ts';
import { DEFAULT_SEQUENCES, pathParamNames, positiveBody, readerOf } from '../../plan/cases.ts';
import { redrawMadeUp } from '../../plan/named-values.ts';
import { Random } from '../../plan/random.ts';
import { listOf, recordProperties, referencedCreates } from '../../plan/relations.ts';
import { accepts } from '../../plan/accepts.ts';
import { factsOf } from '../../plan/keywords.ts';
import { generate, UNKNOWN, withoutExamples } from '../../plan/values.ts';
import { createdId, createsItself } from '../../plan/resources.ts';
import { is2xx, judgedUnanswered, type Answered } from '../judge.ts';
import { withAdditionalProperty } from '../../plan/coverage-classes.ts';
import { alignBodyToPath, withReference, type Doubts } from '../records/references.ts';
import type { CaseRun } from '../case-run.ts';
import { readCreated, readOwnership, RelationUnmet, type RelationsHost } from '../relations-run.ts';
import { followLocation } from '../follow-location.ts';
import { answeredRecord, assignOnCreate, assignOnUpdate } from './mass-assignment.ts';
import { readerAtFault } from '../../checks/created-resource-readable.ts';
import { changedByRepeat } from '../../checks/put-idempotent.ts';
import { responseFor } from '../../description/load.ts';
import type { CallRequest } from '../request-builder.ts';
import type { PhaseContext } from './host.ts';
import { Skip } from '../skip.ts';
import { resolveTemplates } from '../templates.ts';


/** What the relation chains need of the session, each call made as part of the case. */
function relationsHost(session: PhaseContext, run: CaseRun): RelationsHost {
  return {
    contract: session.contract,
    call: async (op, request, options) => {
      if (options?.refusalUnjudged !== true || op.operationId !== run.op.operationId) return run.send(op, request);
      const exchange = await run.send(op, request, { intent: true });
      const status = exchange.response?.status;
      if (status === undefined || status < 400 || status >= 500) run.judgeResponse(exchange);
      return exchange;
    },
    freshIds: (op) => session.fixtures.fixture(op, true, run),
    positiveBody: (op) => session.fixtures.recordBody(op, new Random(`${session.config.seed}:${op.operationId}:related`), run),
    present: (op) => session.presence.provenPresent(op),
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

export async function runOwnership(session: PhaseContext, run: CaseRun): Promise<CaseResult> {
  const reads = await related(() => readOwnership(relationsHost(session, run), run.op, []));
  if (!reads[0]) return run.skipped(`${run.op.operationId} could not be read`, 'setup-failed');
  run.judgeIntent(reads[0].exchange, { reads });
  return run.result();
}

export async function runCreatedReadable(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string> }): Promise<CaseResult> {
  const action = await run.send(run.op, request, { intent: true });
  const reads = await related(() => readCreated(relationsHost(session, run), run.op, request.pathParams, request.body, action, []));
  // No read that can show the record (none answered, or each answer is its reader's own failure): the case shows nothing.
  const { profile, validator } = session.judging.judgeInput(run.op);
  if (reads.every((read) => readerAtFault(read, profile, validator))) {
    run.judgeResponse(action);
    const answers = reads.map((read) => `${read.operation.operationId} answered ${read.exchange.response.status}`).join(', ');
    return run.skipped(`no reader could show the created record (${answers || 'none answered'}${answers ? ': their own failures' : ''}; see their cases)`, 'setup-failed');
  }
  // The record a 201's Location names, read once per create (its id: the one the record's reads ask for).
  const location = await followLocation(session, run, action as Answered, reads, (reads.find((r) => r.role === 'item') ?? reads[0])?.id);
  run.judgeIntent(action, { reads, ...(location ? { location } : {}) });
  // What the create must not set, in a create of its own: judged against this record (its item read, else its answer).
  const item = reads.find((r) => r.role === 'item' && is2xx(r.exchange));
  await assignOnCreate(session, run, request, item ? item.exchange.response.json : answeredRecord(action.response?.json));
  return run.result();
}

/** update: PUT then read back; delete: DELETE then read again (and list). */
export async function runLifecycle(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> }, doubts: Doubts = () => ({})): Promise<CaseResult> {
  // An update and its read back are one turn of the path's updates: another case's update meanwhile would
  // overwrite it (one record per caller) or rename the record (a key that follows a field).
  if (run.op.method === 'PUT' || run.op.method === 'PATCH') return session.caller.writeChain(run.op, () => lifecycle(session, run, request, doubts));
  return lifecycle(session, run, request, doubts);
}

async function lifecycle(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> }, doubts: Doubts): Promise<CaseResult> {
  const { op } = run;
  const reader = readerOf(session.contract, op);
  if (!reader) return run.skipped(`no GET ${op.path} to read the record back`, 'no-producer');
  const before = await run.send(reader, { pathParams: request.pathParams });
  if (!is2xx(before)) return run.skipped(`${reader.operationId} answered ${before.response?.status ?? before.error?.message} before the ${op.method}`, 'setup-failed');
  // Every field changed but those that name the path's record: the body never contradicts its path.
  // The text it makes up is its own (a backend may keep a title unique, or make the record's key of it).
  const changed = changedBody(request.body, before.response?.json, op.requestBody?.schema, new Random(`${session.config.seed}:${op.operationId}:changed`));
  const sent = op.method === 'PUT' ? alignBodyToPath(op, redrawMadeUp(changed, new Random(`${session.config.seed}:${op.operationId}:${run.planned.name}`)), request.pathParams) : undefined;
  // What the update must not set is sent apart, after the chain (mass-assignment): a refusal of it costs the chain nothing.
  const sentRequest = { ...request, ...(sent !== undefined ? { body: sent } : {}) };
  // A delete, its reads and the writes after it run as one chain with the service's creates held back: a freed id
  // handed to a new record meanwhile would read as the deleted record still served (and be written to).
  return op.method === 'DELETE' ? session.caller.deleteChain(op, () => writeAndRead(session, run, reader, before, sentRequest, sent, doubts)) : writeAndRead(session, run, reader, before, sentRequest, sent, doubts);
}

/** The write of a lifecycle chain, the read after it (and the list, for a delete), judged. */
async function writeAndRead(session: PhaseContext, run: CaseRun, reader: Operation, before: Exchange, request: CallRequest & { pathParams: Record<string, string> }, sent: unknown, doubts: Doubts): Promise<CaseResult> {
  const { op } = run;
  const action = await run.send(op, request, { intent: true });
  if (!is2xx(action)) {
    // A valid update refused is the operation's own finding (positive-data-accepted), unless it can depend on
    // stored data; the chain cannot go on either way.
    if (action.response) run.judgeIntent(action, { intent: 'success', ...doubts(request) });
    else run.judgeResponse(action);
    return run.skipped(`${op.operationId} answered ${action.response?.status ?? action.error?.message} to the update the chain sent`, 'setup-failed');
  }
  const after = await run.send(reader, { pathParams: request.pathParams });
  if (!after.response) return { ...run.result(), outcome: 'errored', errorMessage: after.error?.message ?? 'no response' };
  // The chain judges through the reader: a reader that does not conform cannot vouch for the update.
  // A delete is judged by the status of the read after it (and the list), which a reader that breaks its schema still
  // answers truthfully: only an update's check needs the reader to conform.
  const untrusted = op.method === 'PUT' ? [before, after].find((e) => !session.judging.conforms(reader, e)) : undefined;
  if (untrusted) {
    run.judgeResponse(action);
    return run.skipped(`${reader.operationId} does not conform (see its cases), so it cannot show whether ${op.operationId} worked`, 'setup-failed');
  }
  // A deleted record is gone from its parent's list too.
  const list = op.method === 'DELETE' ? listOf(session.contract, op) : undefined;
  const reads: RelatedRead[] = [];
  const deletedId = pathParamNames(op).at(-1);
  if (list && deletedId) {
    const listed = await run.send(list, { pathParams: request.pathParams });
    if (listed.response) reads.push({ operation: list, role: 'list', exchange: listed as RelatedRead['exchange'], id: request.pathParams[deletedId] ?? '', parentIds: request.pathParams });
  }
  run.judgeIntent(action, { lifecycle: { ...(sent !== undefined ? { sent } : {}), readBack: after as Answered }, reads });
  // The same record updated again with what the update must not set, judged against what this update left.
  if (op.method === 'PUT' && is2xx(after)) await assignOnUpdate(session, run, reader, request, after.response?.json);
  // The record gone (not read back, not listed), the path's other writes must not succeed on it either. Where the
  // delete left it listed, the record may still be stored: a write that succeeds is that defect again, the delete's.
  if (op.method === 'DELETE' && !is2xx(after) && !run.result().findings.some((f) => f.check === 'use-after-delete')) await writesAfterDelete(session, run, request.pathParams);
  return run.result();
}

/**
 * The path's other writes (a PATCH, a PUT that does not create the record it names), each sent once to the record
 * just deleted with a body of its own (those that cannot be built are left out). A success is the write's own
 * defect (use-after-delete on its operation): it claims to have changed a record that is gone.
 */
async function writesAfterDelete(session: PhaseContext, run: CaseRun, pathParams: Record<string, string>): Promise<void> {
  const { op } = run;
  const writes = session.contract.operations.filter((o) => o.service === op.service && o.path === op.path && (o.method === 'PATCH' || o.method === 'PUT') && !pathParamNames(o).some((p) => createsItself(session.contract, o, p)));
  for (const write of writes) {
    let body: unknown;
    try {
      body = write.requestBody ? alignBodyToPath(write, await session.fixtures.recordBody(write, new Random(`${session.config.seed}:${write.operationId}:after-delete`), run), pathParams) : undefined;
    } catch (error) {
      if (error instanceof Skip) continue;
      throw error;
    }
    if (write.requestBody?.required && body === undefined) continue;
    const exchange = await session.caller.call(write, { pathParams, ...(body !== undefined ? { body } : {}) });
    run.keep(exchange);
    const status = exchange.response?.status;
    const written: Finding[] =
      status !== undefined && status >= 200 && status < 300
        ? [{ check: 'use-after-delete', severity: 'error', operationId: write.operationId, method: write.method, path: write.path, message: `${write.method} ${new URL(exchange.request.url).pathname} answered ${status} after ${op.method} ${op.path} removed the record: a write to a record that is gone succeeded.`, expected: 'not 2xx', actual: status, specLocation: `${write.specFile}#${write.pointer}` }]
        : [];
    session.judging.side(write, exchange, written);
  }
}

/**
 * Stateful sequences, each on records made for it alone: the records the path names (new ones, parents
 * first), one new record of each kind a body field names (`user_id`: a user made by the create of `/users`,
 * its id in the body), then the call, then the same call again on the state the first one left (a second
 * create of the same record, a second delete, an update repeated). Every answer is judged for conformance:
 * nothing says whether the repeat must succeed, but whatever the service answers must be documented. The first
 * sequence sends the positive body; the others bodies drawn afresh from the schema (examples where given), the
 * second with a property the schema does not list where it allows others. A PUT's record is read after each of its
 * two calls: the repeat must leave it as the first call did (put-idempotent).
 */
export async function runSequences(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string> }): Promise<CaseResult> {
  const { op } = run;
  const count = session.config.sequences ?? DEFAULT_SEQUENCES;
  // A record of another kind is made only by a create that can be undone (an irreversible one needs --allow-irreversible).
  const references = referencedCreates(session.contract, op).filter(({ create }) => session.config.allowIrreversible || !isIrreversible(session.judging.profileOf(create), create.operationId));
  let sent = 0;
  // A PUT is idempotent (RFC 9110 §9.2.2): the record reads the same after the same call sent again.
  const reader = op.method === 'PUT' ? readerOf(session.contract, op) : undefined;
  // Whether the first sequence's call, without the added property, answered a server error too.
  let plainServerError = false;
  for (let n = 0; n < count; n++) {
    let pathParams = request.pathParams;
    let body = request.body;
    let added: string | undefined;
    if (n > 0) {
      const input = await sequenceInput(session, run, request, n);
      if (!input) break;
      ({ pathParams, body, added } = input);
    }
    for (const { field, create } of references) {
      if (typeof body !== 'object' || body === null || !(field in body)) continue;
      const id = await makeRecord(session, run, create, field, `${op.operationId}:${n}`);
      if (id !== undefined) body = withReference(op, body, field, id);
    }
    const call: CallRequest = { ...request, pathParams, ...(body !== undefined ? { body } : {}) };
    sent++;
    // The call, then the same call again; a request without an answer ends the sequences. A DELETE's two are one
    // chain with the service's creates held back (its second would otherwise delete a record given the freed id).
    const twice = async (): Promise<boolean> => {
      const answers: Exchange[] = [];
      const reads: Answered[] = [];
      for (let time = 0; time < 2; time++) {
        const exchange = await run.send(op, call, { intent: true });
        if (exchange.response === undefined && !judgedUnanswered(exchange)) {
          run.unanswered(exchange);
          return false;
        }
        if (n === 0 && time === 0 && (exchange.response?.status ?? 0) >= 500) plainServerError = true;
        // The added property is the part this call varies: a server error to it is its own finding.
        run.judgeResponse(exchange, added ? { coverage: { label: added, sent: 1, ...(plainServerError ? { unvaried: true } : {}) } } : {});
        answers.push(exchange);
        // A PUT's record is read after each call that succeeded (as long as the reads before showed it): put-idempotent.
        if (reader && is2xx(exchange) && reads.length === time) {
          const read = await readRecord(session, run, reader, pathParams);
          if (read) reads.push(read);
        }
      }
      if (reader) await judgeRepeat(session, run, answers, reads, reader, pathParams, call.body);
      return true;
    };
    if (!(op.method === 'DELETE' ? await session.caller.deleteChain(op, twice) : await twice())) return run.result();
  }
  if (sent === 0) return run.skipped('no record could be made for a sequence', 'setup-failed');
  return run.result();
}

/**
 * The path values and body of a later sequence (n > 0): records made for it alone, a body drawn afresh, the second
 * with a property the schema does not list; undefined where no record could be made.
 */
async function sequenceInput(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string> }, n: number): Promise<{ pathParams: Record<string, string>; body: unknown; added?: string } | undefined> {
  const { op } = run;
  let pathParams = request.pathParams;
  try {
    if (pathParamNames(op).length > 0) pathParams = { ...request.pathParams, ...(await session.fixtures.fixture(op, true, run)) };
  } catch (error) {
    if (error instanceof Skip) return undefined;
    throw error;
  }
  // A body the examples give (it may name setup steps or a one-time password) is sent as the first
  // sequence resolved it; one built from the schema is drawn afresh.
  const example = session.examples.operations[op.operationId];
  const drawn = example && 'body' in example ? request.body : await resolveTemplates(positiveBody(op, session.examples, new Random(`${session.config.seed}:${op.operationId}:sequence:${n}`)), session.fixtures.scope({}));
  const body = request.body === undefined ? undefined : alignBodyToPath(op, drawn, pathParams);
  // The second sequence adds a property the schema does not list where it lets others through: on fresh
  // records, so a strict deserialiser's failure is not hidden behind a refusal of the state.
  const extra = n === 1 && op.requestBody ? withAdditionalProperty(op.requestBody.schema, body) : undefined;
  return extra ? { pathParams, body: extra.body, added: extra.label } : { pathParams, body };
}

/** The record read back through its GET: the answer when it is a 2xx that conforms (else it shows nothing). */
async function readRecord(session: PhaseContext, run: CaseRun, reader: Operation, pathParams: Record<string, string>): Promise<Answered | undefined> {
  const read = await run.send(reader, { pathParams });
  return is2xx(read) && session.judging.conforms(reader, read) ? (read as Answered) : undefined;
}

/**
 * A PUT sent twice, judged as a repeat (put-idempotent) where the first succeeded: the second's refusal, or the two
 * reads. Not where the reads show nothing (one failed or broke its schema), nor on a 429 or 503 (nothing of the write).
 * Two reads that differ are told from a reader that answers differently each time: a third read, with no write
 * between, must read as the second did on what changed, else the reads show nothing of the PUT.
 */
async function judgeRepeat(session: PhaseContext, run: CaseRun, answers: Exchange[], reads: Answered[], reader: Operation, pathParams: Record<string, string>, sent: unknown): Promise<void> {
  const [first, second] = answers;
  if (!first || !second?.response || !is2xx(first)) return;
  const status = second.response.status;
  if (status === 429 || status === 503 || (is2xx(second) && reads.length < 2)) return;
  const [before, after] = reads;
  if (before && after) {
    const schema = responseFor(reader, after.response.status)?.schema;
    const changed = Object.keys(changedByRepeat(before.response.json, after.response.json, schema));
    if (changed.length > 0) {
      const again = await readRecord(session, run, reader, pathParams);
      const moved = again ? Object.keys(changedByRepeat(after.response.json, again.response.json, schema)) : changed;
      if (changed.some((name) => moved.includes(name))) return;
    }
  }
  const repeat = { first: first as Answered, reader, reads, ...(sent !== undefined ? { sent } : {}) };
  run.judgeIntent(second, { intent: 'put-idempotent', repeat });
}

/** One new record of a create (parents made for it first), as the id a body field names; undefined when none came. */
async function makeRecord(session: PhaseContext, run: CaseRun, create: Operation, field: string, draw: string): Promise<string | undefined> {
  let pathParams: Record<string, string> = {};
  let body: unknown;
  try {
    if (pathParamNames(create).length > 0) pathParams = await session.fixtures.fixture(create, true, run);
    body = await session.fixtures.recordBody(create, new Random(`${session.config.seed}:${create.operationId}:sequence:${draw}`), run);
  } catch (error) {
    if (error instanceof Skip) return undefined;
    throw error;
  }
  const made = await run.send(create, { pathParams, ...(body !== undefined ? { body } : {}) });
  return made.response && is2xx(made) ? createdId(made.response.json, field) : undefined;
}

/**
 * The update body with every value made different from what the record holds now (so a no-op update shows), each
 * still one its property's schema accepts: another enum value, the number next to it, the text with "-changed",
 * else a value drawn afresh from the schema; a value that cannot change and stay valid is sent as it is. A body
 * the schema would refuse as a whole is sent as planned.
 */
function changedBody(body: unknown, current: unknown, schema?: JsonSchema, random?: Random): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const now = (typeof current === 'object' && current !== null ? current : {}) as Record<string, unknown>;
  const properties = recordProperties(schema);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) out[k] = now[k] !== v ? v : changedValue(v, properties[k], random);
  return schema !== undefined && accepts(schema, out) === false ? body : out;
}

function changedValue(value: unknown, schema: JsonSchema | undefined, random: Random | undefined): unknown {
  const allowed = schema === undefined ? undefined : factsOf(schema).allowed;
  const candidates: unknown[] = [
    ...(allowed ?? []).filter((a) => !isDeepStrictEqual(a, value)),
    ...(typeof value === 'boolean' ? [!value] : typeof value === 'number' ? [value + 1, value - 1] : typeof value === 'string' ? [`${value}-changed`] : []),
  ];
  const valid = (candidate: unknown) => schema === undefined || accepts(schema, candidate) !== false;
  const found = candidates.find(valid);
  if (found !== undefined || schema === undefined || random === undefined) return found ?? value;
  // Drawn without the schema's examples and default: those are what the record was made with.
  const drawn = generate(typeof schema === 'object' ? withoutExamples(schema) : schema, random);
  return drawn !== UNKNOWN && drawn !== undefined && !isDeepStrictEqual(drawn, value) && valid(drawn) ? drawn : value;
}

export type { Operation };
