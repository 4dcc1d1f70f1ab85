import type { CaseResult, Contract, HttpMethod, Operation } from '../../model.ts';
import type { PositiveRequest } from '../../plan/arbitraries.ts';
import { DEFAULT_MAX_EXAMPLES } from '../../plan/coverage.ts';
import { coverageRequests, type CoverageRequest } from '../../plan/coverage-classes.ts';
import { isSafe } from '../../plan/cases.ts';
import { tierOf } from '../../plan/input-tiers.ts';
import { Random } from '../../plan/random.ts';
import type { CaseRun } from '../case-run.ts';
import type { CallRequest } from '../request-builder.ts';
import type { PhaseContext } from './host.ts';
import { runCoverage, type CoverageItem } from './coverage.ts';
import { replayed } from './replay.ts';
import type { Doubts } from '../records/references.ts';

/** Class requests of one operation at most (the generator's round robin touches every parameter first). */
const CLASS_LIMIT = 100;

/**
 * Methods sent where the contract does not document them: safe ones, harmless if served. GET, TRACE and OPTIONS
 * (RFC 9110 §9.2.1); QUERY, safe and idempotent by its definition (draft-ietf-httpbis-safe-method-w-body), which
 * OpenAPI 3.0 and 3.1 cannot document: a server that does not know it answers 501 or 405.
 */
const UNDOCUMENTED_PROBES: HttpMethod[] = ['GET', 'TRACE', 'QUERY', 'OPTIONS'];

/**
 * Unsafe methods sent where the contract does not document them, only with --allow-irreversible (and never under
 * --read-only): a deployment that serves one anyway may change or delete the record the path names. Last,
 * DELETE last of all.
 */
const UNSAFE_PROBES: HttpMethod[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** The path's requests with a method the contract documents for no operation of it (one operation per path sends them). */
function undocumentedMethodItems(session: PhaseContext, op: Operation): CoverageItem[] {
  const { methods, covered, probes } = session.presence.methodsOfPath(op);
  if (!probes) return [];
  const unsafe = session.config.allowIrreversible && !session.config.readOnly;
  return [...UNDOCUMENTED_PROBES, ...(unsafe ? UNSAFE_PROBES : [])].filter((m) => !covered.includes(m)).map((method) => ({
    label: `${method} ${op.path} (a method the contract does not document for this path)`,
    valid: false,
    class: 'unsupported-method',
    method,
    noBody: true,
    query: {},
    unsupportedMethod: { documented: methods, covered, recordUnknown: /\{[^}]+\}/.test(op.path) },
  }));
}

/**
 * A valid path value other than the record's own may name a record someone else keeps (an id at a bound, an enum
 * value): an unsafe method sends it only with --allow-irreversible. One beyond int64 names none anywhere; another
 * spelling of the record's own id (an upper-case uuid) names that record.
 */
function namesAnotherRecord(item: CoverageRequest): boolean {
  return item.pathParams !== undefined && item.valid && item.class !== 'beyond-int64' && item.class !== 'format-respelling';
}

/**
 * A DELETE removes the record its path names once: of the valid spellings of that record's own path (an upper-case
 * uuid, plan/formats.ts respell), only the first is sent. Every later one would be answered about a record the case
 * itself removed, which shows nothing of the value sent. (Other valid path values name other records, or none.)
 */
function oneRemoval(op: Operation, items: CoverageRequest[]): CoverageRequest[] {
  if (op.method !== 'DELETE') return items;
  let first = true;
  return items.filter((i) => {
    if (!i.valid || i.judgeAs !== undefined || i.pathParams === undefined || i.class !== 'format-respelling') return true;
    const keep = first;
    first = false;
    return keep;
  });
}

/** Why a guarded coverage case sends only what must be refused. */
const GUARDED = 'only variations a correct deployment must refuse are sent (its valid calls may not be made here)';

/**
 * A variation a correct deployment must refuse, whatever it accepts leniently: schema-invalid in a must-reject
 * class (plan/input-tiers.ts), judged as a negative. Sending it is as safe as a negative case.
 */
function mustBeRefused(item: CoverageRequest): boolean {
  return !item.valid && item.judgeAs === undefined && tierOf(item.class) === 'must-reject';
}

/** The description's dialect counts `2.0` as an integer: JSON Schema 2020-12, OpenAPI 3.1 and after. */
function decimalIntegers(contract: Contract, op: Operation): boolean {
  const version = contract.services.find((s) => s.id === op.service)?.openapi ?? '';
  return /^3\.(?:[1-9]|\d{2,})\./.test(version);
}

/**
 * The coverage items of one operation as the phase sends them (the methods its path does not document aside), in
 * order; pure, so `conformance plan` counts them too. Every class that breaks servers (up to CLASS_LIMIT), then
 * random variation up to --max-examples requests in all; only what must be refused where valid calls may not be made.
 */
export function coverageItemsOf(contract: Contract, op: Operation, positive: PositiveRequest, settings: { seed: number; maxExamples?: number; allowIrreversible: boolean; mustRefuseOnly: boolean }): CoverageRequest[] {
  const random = new Random(`${settings.seed}:${op.operationId}:coverage`);
  const max = settings.maxExamples ?? DEFAULT_MAX_EXAMPLES;
  const all = coverageRequests(op, positive, random, CLASS_LIMIT + max, { decimalIntegers: decimalIntegers(contract, op) });
  // The operation's valid calls may not be made: what a correct deployment must refuse, and nothing else.
  if (settings.mustRefuseOnly) return all.filter(mustBeRefused).slice(0, CLASS_LIMIT);
  const classes = all.filter((i) => i.class !== 'random').slice(0, CLASS_LIMIT);
  const sendable = oneRemoval(op, settings.allowIrreversible || isSafe(op) ? classes : classes.filter((i) => !namesAnotherRecord(i)));
  return [...sendable, ...all.filter((i) => i.class === 'random').slice(0, Math.max(0, max - classes.length))];
}

/** The coverage case of one operation: its planned items sent and judged (phases/coverage.ts), then replayed. */
export async function runCoveragePhase(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> }, doubts: Doubts): Promise<CaseResult> {
  const { op } = run;
  const positive = { pathParams: request.pathParams, query: request.query, ...(request.headers ? { headers: request.headers } : {}), ...(request.cookies ? { cookies: request.cookies } : {}), ...(request.body !== undefined ? { body: request.body } : {}) };
  // Every class of input that breaks servers is sent (up to CLASS_LIMIT); --max-examples is the phase's budget
  // per operation, filled with random variation after the classes.
  const mustRefuseOnly = run.planned.mustRefuseOnly === true;
  const settings = { seed: session.config.seed, ...(session.config.maxExamples !== undefined ? { maxExamples: session.config.maxExamples } : {}), allowIrreversible: session.config.allowIrreversible, mustRefuseOnly };
  const items: CoverageItem[] = [...coverageItemsOf(session.contract, op, positive, settings), ...undocumentedMethodItems(session, op)];
  if (items.length === 0) return run.skipped(mustRefuseOnly ? `${GUARDED}; the contract shows nothing to vary that must be refused` : 'the contract shows no constraint to vary in this request');
  const { sent } = await runCoverage(run, request, items, doubts, { mustRefuseOnly });
  if (sent === 0) return run.skipped('no coverage request was sent');
  return replayed(session, run, run.result({ evidenceOnly: true }));
}
