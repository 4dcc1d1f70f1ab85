/**
 * A create sent twice, and a second record (the targets: plan/repeated-create.ts). A valid body is created, then
 * sent again as it was: the repeat's answer is judged as any answer of the create (a server error, an undocumented
 * status or body is the create's finding, its message led by what came before). A repeat refused says the body
 * holds a value the deployment keeps unique: a second record is made with a body drawn anew, and each update of
 * the first record is sent the second's values (a schema-valid request: a refusal is the deployment's right, a
 * server error a finding of the update). Then the collection's list, holding both records, is asked for in each
 * media type its successes declare. Every record made goes into the clean-up (the case's POSTs are settled).
 */
import { isIrreversible } from '../../description/profile.ts';
import type { CaseResult, Exchange, Operation } from '../../model.ts';
import { responseMediaTypes } from '../../plan/accept-header.ts';
import { accepts } from '../../plan/accepts.ts';
import { factsOf, mergedShape } from '../../plan/keywords.ts';
import { parameterValues, stringValues } from '../../plan/parameters.ts';
import { Random } from '../../plan/random.ts';
import { largestPage } from '../../plan/refused-create.ts';
import { repeatTargets, type RepeatTargets } from '../../plan/repeated-create.ts';
import { createdId } from '../../plan/resources.ts';
import { idFromLocation } from '../../plan/undo.ts';
import type { CaseRun } from '../case-run.ts';
import { createdIds } from '../created.ts';
import { is2xx } from '../judge.ts';
import { alignBodyToPath } from '../references.ts';
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
  const body = await drawn(session, run, op, pathParams, 'first');
  if (body === undefined) return run.skipped('no valid body of the create could be built', 'no-request');
  const made = await run.send(op, { ...request, body });
  if (!is2xx(made)) return run.skipped(`${where(op)} answered ${made.response?.status ?? made.error?.message ?? 'nothing'} to a valid body: there was no record to create again`, 'setup-failed');
  const again = await run.send(op, { ...request, body }, { note: { text: `Sent again the body ${where(op)} had just answered ${made.response.status} to` } });
  if (!again.response) return run.result();
  let other: { body: Body; id: string | undefined } | undefined;
  if (!is2xx(again)) {
    // A value of the body is kept unique: a record with values of its own, to give the first one.
    const second = await drawn(session, run, op, pathParams, 'second');
    const answer = second === undefined ? undefined : await run.send(op, { ...request, body: second }, { note: { text: `A second record, after ${where(op)} refused the same body again (${again.response.status})` } });
    if (second === undefined || answer === undefined || !is2xx(answer)) return run.result();
    other = { body: second, id: recordId(answer, targets) };
  }
  const firstId = recordId(made, targets);
  if (other !== undefined && firstId !== undefined) {
    for (const update of targets.updates) await sendOthersValues(session, run, update, { ...pathParams, [targets.param]: firstId }, other.body);
  }
  if (targets.list) await listBoth(session, run, targets.list, pathParams);
  return run.result();
}

/** An operation's required query and header values (what its reads and writes here send besides path and body). */
function declared(session: PhaseContext, op: Operation): Pick<CallRequest, 'query' | 'headers'> {
  const random = new Random(`${session.config.seed}:${op.operationId}:repeated-create`);
  const headers = stringValues(parameterValues(op, 'header', random, 'none'));
  return { query: parameterValues(op, 'query', random, 'none'), ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

function where(op: Operation): string {
  return `${op.method} ${op.path}`;
}

/** A valid body of a write for these path values, drawn for its purpose; undefined when none can be built. */
async function drawn(session: PhaseContext, run: CaseRun, write: Operation, pathParams: Params, purpose: string): Promise<Body | undefined> {
  try {
    const random = new Random(`${session.config.seed}:${write.operationId}:repeated-create:${purpose}`);
    const body = alignBodyToPath(write, await session.fixtures.recordBody(write, random, run), pathParams);
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : undefined;
  } catch (error) {
    if (error instanceof Skip) return undefined;
    throw error;
  }
}

/** The id of the record a create answered: in its body, else in its Location. */
function recordId(exchange: Exchange, targets: RepeatTargets): string | undefined {
  const json = exchange.response?.json;
  return createdId(json, targets.param) ?? createdIds(json)[0] ?? (targets.item ? idFromLocation(exchange.response?.headers['location'], targets.item) : undefined);
}

/**
 * An update of the first record with the second record's values: the update's own valid body, with every property
 * both bodies have set to the second's value; not sent when that body is not valid for the update.
 */
async function sendOthersValues(session: PhaseContext, run: CaseRun, update: Operation, pathParams: Params, others: Body): Promise<void> {
  const base = await drawn(session, run, update, pathParams, 'update');
  if (base === undefined) return;
  const listed = factsOf(mergedShape(update.requestBody!.schema)).properties;
  const taken = Object.keys(others).filter((name) => name in listed && others[name] !== undefined && !(name in pathParams));
  if (taken.length === 0) return;
  const body = { ...base, ...Object.fromEntries(taken.map((name) => [name, others[name]])) };
  if (accepts(update.requestBody!.schema, body) === false) return;
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
