/**
 * Access between identities (--identity). Object level: another identity calls the operation on a record the run
 * created with its own credential (read, change, delete, or a sub-resource of it); then the owner makes the same
 * call, so the table shows what each got and a refusal is known to be about the record, not a request the owner
 * would be refused too. Function level: an identity whose declared scopes or roles lack what the operation needs
 * makes its call. The checks are in checks/access.ts; records a call changed are the run's own (made for the case
 * where the call writes) and are cleaned up with the owner's credential as every record the run made.
 */
import { randomUUID } from 'node:crypto';
import { lackingFor, ownedPerIdentity } from '../../description/profile.ts';
import { schemaFormat, schemaTypes } from '../../description/json-schema.ts';
import type { AccessRecord, CaseResult, Exchange, Operation } from '../../model.ts';
import { pathParamNames } from '../../plan/cases.ts';
import { DEFAULT_IDENTITY } from '../identities.ts';
import type { CaseRun } from '../case-run.ts';
import type { CallRequest } from '../request-builder.ts';
import type { PhaseContext } from './host.ts';

type AccessRequest = CallRequest & { pathParams: Record<string, string> };

const statusOf = (e: Exchange): number | undefined => e.response?.status;

/** The identity an access case calls as (its auth mode is `as:<name>`). */
function callerOf(run: CaseRun): string {
  const auth = run.planned.request.auth;
  return auth.startsWith('as:') ? auth.slice(3) : DEFAULT_IDENTITY;
}

/**
 * The other identity's answer said nothing of the record: no answer, or a 401 (its credential was refused: a
 * configuration to check, never the service's fault). The case is skipped with why.
 */
function unusable(run: CaseRun, exchange: Exchange, identity: string): CaseResult | undefined {
  if (!exchange.response) {
    run.unanswered(exchange);
    return run.result();
  }
  if (exchange.response.status === 401) {
    const access: AccessRecord = { kind: run.planned.expectation === 'function-access' ? 'function' : 'object', identity, status: 401 };
    return { ...run.skipped(`identity ${identity}'s credential was refused (401 to ${exchange.request.method} ${new URL(exchange.request.url).pathname}): check what --identity ${identity} gives`, 'setup-failed'), access };
  }
  return undefined;
}

/** A value of the path parameter that names no record (a fresh uuid, an integer far beyond the run's, a random text). */
function absentValue(op: Operation, name: string): string {
  const schema = op.parameters.find((p) => p.in === 'path' && p.name === name)?.schema ?? {};
  if (schemaFormat(schema) === 'uuid') return randomUUID();
  const types = schemaTypes(schema);
  if (types.includes('integer') || types.includes('number')) {
    const max = typeof (schema as { maximum?: unknown }).maximum === 'number' ? ((schema as { maximum: number }).maximum) : 2_147_483_647;
    return String(Math.max(1, Math.floor(max) - Math.floor(Math.random() * 1000)));
  }
  return `absent-${randomUUID().slice(0, 8)}`;
}

export async function runObjectAccess(session: PhaseContext, run: CaseRun, request: AccessRequest): Promise<CaseResult> {
  const { op } = run;
  const identity = callerOf(run);
  const owned = ownedPerIdentity(op, session.judging.profileOf(op));
  const asOther = await run.send(op, request, { intent: true });
  const stop = unusable(run, asOther, identity);
  if (stop) return stop;
  // A 403 to another's record: is an unknown record answered the same? (Otherwise the 403 says the record exists.)
  let unknownRecordStatus: number | undefined;
  const names = pathParamNames(op);
  const last = names.at(-1);
  if (owned && statusOf(asOther) === 403 && last !== undefined) {
    const unknown = await run.send(op, { ...request, pathParams: { ...request.pathParams, [last]: absentValue(op, last) } });
    unknownRecordStatus = statusOf(unknown);
  }
  // The owner's own call, after the other's (a delete the other was refused must still find the record).
  const asOwner = await run.send(op, { ...request, auth: 'valid' });
  const access: AccessRecord = {
    kind: 'object',
    identity,
    ...(statusOf(asOther) !== undefined ? { status: statusOf(asOther)! } : {}),
    owner: DEFAULT_IDENTITY,
    ...(statusOf(asOwner) !== undefined ? { ownerStatus: statusOf(asOwner)! } : {}),
    owned,
    ...(unknownRecordStatus !== undefined ? { unknownRecordStatus } : {}),
  };
  const ownerOk = (statusOf(asOwner) ?? 0) >= 200 && (statusOf(asOwner) ?? 0) <= 299;
  const otherOk = (statusOf(asOther) ?? 0) >= 200 && (statusOf(asOther) ?? 0) <= 299;
  // The owner refused too (and the other not let through): the other's refusal shows nothing of ownership.
  if (!ownerOk && !otherOk) {
    return { ...run.skipped(`the owner's own call answered ${statusOf(asOwner) ?? asOwner.error?.message}: identity ${identity}'s ${statusOf(asOther)} shows nothing of who may call it`, 'setup-failed'), access };
  }
  run.judgeIntent(asOther, { access: { identity, owner: DEFAULT_IDENTITY, owned, ...(unknownRecordStatus !== undefined ? { unknownRecordStatus } : {}) } });
  return { ...run.result(), access };
}

export async function runFunctionAccess(session: PhaseContext, run: CaseRun, request: AccessRequest): Promise<CaseResult> {
  const { op } = run;
  const name = callerOf(run);
  const identity = session.config.identities?.find((i) => i.name === name);
  const lacking = lackingFor(op, session.judging.profileOf(op), identity);
  const exchange = await run.send(op, request, { intent: true });
  const stop = unusable(run, exchange, name);
  if (stop) return stop;
  const access: AccessRecord = { kind: 'function', identity: name, ...(statusOf(exchange) !== undefined ? { status: statusOf(exchange)! } : {}), lacking };
  run.judgeIntent(exchange, { access: { identity: name, lacking } });
  return { ...run.result(), access };
}
