/**
 * Mass assignment (checks/mass-assignment.ts): a write is sent, as a request of its own, the properties it must not
 * set (plan/mass-assignment.ts), each with a distinctive value, beside what a valid write of the same record sends;
 * then the record is read (its reader's answer, else the write's own answer shows it). Apart from the write a chain
 * judges, so that a strict deployment refusing them does not cost that chain its write. An update's goes after the
 * update-persisted chain, on the same record (execute/phases/stateful.ts), a create's after its created-readable
 * chain; a write with neither has a case of its own (runMassAssignment). One write and one read each.
 */
import type { MassAssignmentContext } from '../../checks/types.ts';
import type { CaseResult, Exchange, Operation } from '../../model.ts';
import { accepts } from '../../plan/accepts.ts';
import { readerOf } from '../../plan/cases.ts';
import { assignable, assignedProperties, itemReaderOf, writtenRecordSchema, type AssignedProperty } from '../../plan/mass-assignment.ts';
import { Random } from '../../plan/random.ts';
import { isCreate } from '../../plan/relations.ts';
import { createdId, createdRecords } from '../../plan/resources.ts';
import type { CaseRun } from '../case-run.ts';
import { createdIds } from '../records/in-answer.ts';
import { is2xx, judgedUnanswered, type Answered } from '../judge.ts';
import { alignBodyToPath } from '../records/references.ts';
import type { CallRequest } from '../request-builder.ts';
import { Skip } from '../skip.ts';
import type { PhaseContext } from './host.ts';

type WriteRequest = CallRequest & { pathParams: Record<string, string> };
type Shown = Omit<MassAssignmentContext, 'sent'>;


function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The record a write's answer holds: the answer itself, or the record of a create's array, page or envelope. */
export function answeredRecord(json: unknown): Record<string, unknown> | undefined {
  return asRecord(createdRecords(json)[0]);
}

/** A read of the record after the write, judged as its reader's answer; the reader vouches only for an answer that conforms. */
async function readRecord(session: PhaseContext, run: CaseRun, reader: Operation, pathParams: Record<string, string>): Promise<Shown> {
  const read = await run.send(reader, { pathParams });
  return { ...(is2xx(read) && session.judging.conforms(reader, read) ? { record: read.response.json } : {}), shownBy: 'read' };
}

/**
 * The write with what it must not set beside the body `valid` gives (a valid write of the record; drawn only once
 * there is something to send, undefined: none), judged with what `see` shows of the record after a success.
 * `current` is the record as it is now (undefined: the run cannot see it). False when nothing can be sent: no such
 * property, none with a distinctive value, no valid body, or one the request schema would refuse with them.
 */
async function sendAssigned(session: PhaseContext, run: CaseRun, request: WriteRequest, valid: () => Promise<{ body: unknown } | undefined>, current: Record<string, unknown> | undefined, see: (answer: Answered) => Promise<Shown>): Promise<boolean> {
  const { op } = run;
  const random = new Random(`${session.config.seed}:${op.operationId}:mass-assignment`);
  let sent = assignedProperties(assignable(op, writtenRecordSchema(session.contract, op)), current, random);
  if (sent.length === 0) return false;
  const drawn = await valid();
  const base = drawn === undefined ? undefined : drawn.body === undefined ? {} : asRecord(drawn.body);
  if (!base) return false;
  const withSent = (props: AssignedProperty[]) => ({ ...base, ...Object.fromEntries(props.map((p) => [p.name, p.value])) });
  // Never a request its schema refuses (an alternative closed to other properties): the readOnly ones alone, else nothing.
  const schema = op.requestBody?.schema;
  const fits = (props: AssignedProperty[]) => schema === undefined || accepts(schema, withSent(props)) !== false;
  if (!fits(sent)) sent = sent.filter((p) => p.why === 'read-only');
  if (sent.length === 0 || !fits(sent)) return false;
  const exchange = await run.send(op, { ...request, body: withSent(sent) }, { intent: true });
  if (!exchange.response) {
    if (judgedUnanswered(exchange)) run.judgeResponse(exchange);
    else run.unanswered(exchange);
    return true;
  }
  // A refusal is right: nothing to read.
  const shown: Shown = is2xx(exchange) ? await see(exchange) : { shownBy: 'answer' };
  run.judgeIntent(exchange, { intent: 'mass-assignment', massAssignment: { sent, ...shown } });
  return true;
}

/**
 * The update of `request`'s record sent again with what it must not set (`request.body`: a valid update of it;
 * `current`: the record as the read after that update showed it, undefined where no reader shows it), then a read.
 */
export async function assignOnUpdate(session: PhaseContext, run: CaseRun, reader: Operation | undefined, request: WriteRequest, current: unknown): Promise<boolean> {
  return sendAssigned(session, run, request, () => Promise.resolve({ body: request.body }), asRecord(current), (answer) =>
    reader ? readRecord(session, run, reader, request.pathParams) : Promise.resolve({ record: answeredRecord(answer.response.json), shownBy: 'answer' }),
  );
}

/**
 * One more record of the create, its body drawn afresh with what the create must not set (`current`: a record a
 * create without them made, undefined where the run saw none), then a read of it by its item reader (else the
 * create's answer shows it). The record goes into the clean-up like every create.
 */
export async function assignOnCreate(session: PhaseContext, run: CaseRun, request: WriteRequest, current: unknown): Promise<boolean> {
  const { op } = run;
  const body = async () => {
    try {
      return { body: alignBodyToPath(op, await session.fixtures.recordBody(op, new Random(`${session.config.seed}:${op.operationId}:mass-assignment:body`), run), request.pathParams) };
    } catch (error) {
      if (error instanceof Skip) return undefined;
      throw error;
    }
  };
  const item = itemReaderOf(session.contract, op);
  return sendAssigned(session, run, request, body, asRecord(current), async (answer) => {
    const json = answer.response.json;
    const id = item ? (createdId(json, item.param) ?? createdIds(json)[0]) : undefined;
    if (!item || id === undefined) return { record: answeredRecord(json), shownBy: 'answer' };
    return readRecord(session, run, item.operation, { ...request.pathParams, [item.param]: id });
  });
}

/**
 * The case of a write no other chain sends them with (plan/mass-assignment.ts massAssignmentCase): a create
 * without readers; a PATCH, or a PUT without a reader. An update with a reader is sent plain first and read: the
 * record an update without them leaves is what they are judged against (a flag any update sets is not theirs).
 */
export async function runMassAssignment(session: PhaseContext, run: CaseRun, request: WriteRequest): Promise<CaseResult> {
  const { op } = run;
  const reader = isCreate(session.contract, op) ? undefined : readerOf(session.contract, op);
  let current: unknown;
  if (reader) {
    const plain = await run.send(op, request);
    if (!is2xx(plain)) return run.skipped(`${op.operationId} answered ${plain.response?.status ?? plain.error?.message} to the valid update sent first (see its positive case)`, 'setup-failed');
    const read = await run.send(reader, { pathParams: request.pathParams });
    if (!is2xx(read) || !session.judging.conforms(reader, read)) return run.skipped(`${reader.operationId} could not show the record after the update (see its cases)`, 'setup-failed');
    current = read.response.json;
  }
  const sent = isCreate(session.contract, op) ? await assignOnCreate(session, run, request, undefined) : await assignOnUpdate(session, run, reader, request, current);
  if (!sent) return run.skipped(`no property ${op.operationId} must not set could be given a value a correct deployment would not arrive at by itself`, 'not-applicable');
  return run.result();
}
