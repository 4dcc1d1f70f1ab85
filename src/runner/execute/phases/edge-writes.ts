/**
 * Writes are read back at their edges (the values: plan/edge-writes.ts). A case of a read of a record sends each
 * write one boundary value: an update to a record made for the case, a create a record of its own. After each write
 * answered with a success, every read that serves the record: its GET by id, its collection's list (its largest
 * first page) and the list filtered by the written value where a query parameter of the property's name takes it.
 * Each read is judged as its own operation's answer (the case's own, or another reader's through the session),
 * its findings' messages led by the write ("After PATCH /people/{id} wrote age = -1 (…)"): a read that breaks its
 * schema, answers a server error or drops the connection then is an error of the read. A write refused (4xx) is a
 * strict deployment's right: nothing is read after it. Each update sends the record's other edged properties back
 * at their base values, so a read shows only what the last write stored. The records made go into the clean-up.
 */
import { isIrreversible } from '../../description/profile.ts';
import { isRecordOf } from '../../checks/created-resource-readable.ts';
import type { CaseResult, Exchange, Operation } from '../../model.ts';
import { accepts } from '../../plan/accepts.ts';
import { edgeTargets, edgeWrites, filterParam, writtenValue, type EdgeTargets, type EdgeWrite } from '../../plan/edge-writes.ts';
import { factsOf, mergedShape } from '../../plan/keywords.ts';
import { requiredParams } from '../../plan/parameters.ts';
import { Random } from '../../plan/random.ts';
import { largestPage } from '../../plan/refused-create.ts';
import { generate, UNKNOWN } from '../../plan/values.ts';
import type { CaseRun } from '../case-run.ts';
import { answeredId } from '../records/in-answer.ts';
import { is2xx } from '../judge.ts';
import { alignBodyToPath } from '../records/references.ts';
import { Skip } from '../skip.ts';
import type { PhaseContext } from './host.ts';

type Params = Record<string, string>;
type Body = Record<string, unknown>;

/** What the writes of one case share: the record the updates write, their base bodies, what restores each edged property. */
interface Writing {
  session: PhaseContext;
  run: CaseRun;
  targets: EdgeTargets;
  /** The record the updates write (made for the case before the first of them); undefined: none could be made. */
  record?: Params;
  /** The create's parents, where no record names them (made for the case). */
  parents?: Params;
  bases: Map<Operation, Body | undefined>;
  restore: Body;
  sent: number;
}

export async function runEdgeWrites(session: PhaseContext, run: CaseRun): Promise<CaseResult> {
  const { op } = run;
  const targets = edgeTargets(session.contract, op);
  let writes = edgeWrites(session.contract, op, (w) => session.config.allowIrreversible || !isIrreversible(session.judging.profileOf(w), w.operationId));
  if (!targets || writes.length === 0) return run.skipped('no write of the record has a boundary value its schema accepts', 'not-applicable');
  const w: Writing = { session, run, targets, bases: new Map(), restore: {}, sent: 0 };
  if (writes.some((e) => e.write !== targets.create)) {
    try {
      w.record = await session.fixtures.fixture(targets.item?.operation ?? targets.updates[0]!, true, run);
    } catch (error) {
      // No record to update: the create's writes still make their own.
      writes = writes.filter((e) => e.write === targets.create);
      if (!(error instanceof Skip) || writes.length === 0) throw error;
    }
  }
  for (const edge of writes) {
    const written = await sendWrite(w, edge);
    if (written !== undefined) await readAfter(w, written, edge);
  }
  if (w.sent === 0) return run.skipped('no write with a boundary value could be built on a valid body of it', 'no-request');
  return run.result();
}

/** The create's parent path values: the record's own where one was made, else parents made for the create. */
async function parentsOf(w: Writing, create: Operation): Promise<Params> {
  const names = [...create.path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return {};
  const record = w.record;
  if (record && names.every((n) => n in record)) return Object.fromEntries(names.map((n) => [n, record[n]!]));
  return (w.parents ??= await w.session.fixtures.fixture(create, true, w.run));
}

/**
 * A valid body of the write for these path values: drawn once per update (the same record), afresh for each create
 * (a record of its own: values that must be unique differ); undefined when none can be built.
 */
async function baseOf(w: Writing, write: Operation, pathParams: Params): Promise<Body | undefined> {
  const create = write === w.targets.create;
  if (create || !w.bases.has(write)) {
    let body: unknown;
    try {
      const random = new Random(`${w.session.config.seed}:${write.operationId}:edge-writes${create ? `:${w.sent}` : ''}`);
      body = alignBodyToPath(write, await w.session.fixtures.recordBody(write, random, w.run), pathParams);
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
    }
    w.bases.set(write, typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : undefined);
  }
  return w.bases.get(write);
}

/** A valid value that sets an edged property back: the base body's, else one drawn from its schema. */
function restoring(write: Operation, base: Body, property: string): unknown {
  if (base[property] !== undefined) return base[property];
  const schema = factsOf(mergedShape(write.requestBody!.schema)).properties[property];
  const drawn = schema === undefined ? undefined : generate(schema, new Random(`${write.operationId}:${property}:restore`));
  return drawn === UNKNOWN ? undefined : drawn;
}

/**
 * One write with its boundary value; the path values of the record it wrote when it answered a success (a create's:
 * the id it answered, else its Location's; the parents alone when neither names one), else undefined.
 */
async function sendWrite(w: Writing, edge: EdgeWrite): Promise<Params | undefined> {
  const { write } = edge;
  const update = write !== w.targets.create;
  if (update && w.record === undefined) return undefined;
  const pathParams = update ? w.record! : await parentsOf(w, write);
  const base = await baseOf(w, write, pathParams);
  if (base === undefined) return undefined;
  const schema = write.requestBody!.schema;
  const listed = factsOf(mergedShape(schema)).properties;
  const restored = update ? Object.fromEntries(Object.entries(w.restore).filter(([name, value]) => name in listed && value !== undefined)) : {};
  const body = { ...base, ...restored, [edge.property]: edge.value };
  if (accepts(schema, body) === false) return undefined;
  w.sent++;
  const exchange = await w.run.send(write, { pathParams, body }, { note: { text: `Sent ${writtenValue(edge)}` } });
  if (!is2xx(exchange)) return undefined;
  if (update) {
    w.restore[edge.property] = restoring(write, base, edge.property);
    return pathParams;
  }
  const { item, param } = w.targets;
  const id = answeredId(exchange, param, item?.operation);
  return id === undefined ? pathParams : { ...pathParams, [param]: id };
}

/** The values a read needs besides its path (its required query and header parameters), and more query. */
function readRequest(w: Writing, read: Operation, pathParams: Params, query: Body = {}) {
  const required = requiredParams(read, new Random(`${w.session.config.seed}:${read.operationId}:edge-writes`));
  return { pathParams, ...required, query: { ...required.query, ...query } };
}

/** JSON pointers of the record of `id` in a list answer (a bare array's entry, or a page's); none when it is not listed. */
function recordPointers(body: unknown, id: string | undefined): string[] {
  const isRecord = (e: unknown): e is Body => typeof e === 'object' && e !== null && !Array.isArray(e);
  const at = (entries: unknown, prefix: string) => (Array.isArray(entries) ? entries.flatMap((e, i) => (isRecord(e) && isRecordOf(e, id) ? [`${prefix}/${i}`] : [])) : []);
  if (id === undefined || typeof body !== 'object' || body === null) return [];
  if (Array.isArray(body)) return at(body, '');
  return Object.entries(body).flatMap(([k, v]) => at(v, `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
}

/**
 * Every read that serves the record after a write stored it: by id, the list, the list filtered by the written
 * value. A list's schema errors name the write only where they lie in the written record (others are other records').
 */
async function readAfter(w: Writing, written: Params, edge: EdgeWrite): Promise<void> {
  const text = `After ${edge.write.method} ${edge.write.path} wrote ${writtenValue(edge)}`;
  const { item, list, param } = w.targets;
  if (item && written[item.param] !== undefined) await w.run.send(item.operation, readRequest(w, item.operation, written), { note: { text } });
  if (!list) return;
  const note = (exchange: Exchange) => ({ text, within: recordPointers(exchange.response?.json, written[param]) });
  const page = largestPage(list);
  await w.run.send(list, readRequest(w, list, written, page), { note });
  const filter = filterParam(list, edge.property, edge.value);
  if (filter !== undefined) await w.run.send(list, readRequest(w, list, written, { ...page, [filter]: edge.value }), { note });
}
