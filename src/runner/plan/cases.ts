import { authVariantNames } from '../http/auth-variants.ts';
import type { AuthMode, RequestPlan } from './request-plan.ts';
import { DEFAULT_IDENTITY, type Identity } from '../model/identity.ts';
import type { CaseKind, Contract, InputLocation, JsonSchema, Operation, RequestBodySpec, SkipKind } from '../model.ts';
import type { Examples, Expectation, RequestExample, SetupStep } from '../description/examples.ts';
import { schemaFormat, schemaProperties, schemaRequired, schemaTypes } from '../description/json-schema.ts';
import { isIrreversible, lackingFor, sideEffectOf, type Profile } from '../description/profile.ts';
import { Random } from './random.ts';
import { DEFAULT_MAX_EXAMPLES } from './coverage.ts';
import { fuzzedPath, hasInputs } from './fuzz-inputs.ts';
import { parameterValues, stringValues, withoutReadOnly } from './parameters.ts';
import { createsItself, namesValue, producerFor, readerFor } from './resources.ts';
import { createOf, isCreate, readersOfCreated, referencedCreates } from './relations.ts';
import { anyClientErrorRejects, omittableParameters, withoutParameter, type OmittedParameter } from './missing-parameters.ts';
import { generate, INT32_MAX, isOmitted, UNKNOWN, wrongKindValues } from './values.ts';
import { factsOf, mergedShape } from './keywords.ts';
import { accepts } from './accepts.ts';
import type { InputClass } from './input-tiers.ts';
import { plansRefusedCreate, REFUSED_CREATE_CASE } from './refused-create.ts';
import { REPEATED_CREATE_CASE, repeatTargets } from './repeated-create.ts';
import { MASS_ASSIGNMENT_CASE, massAssignmentCase } from './mass-assignment.ts';
import { isFormMedia, mediaNegatives } from './media-negatives.ts';
import { EDGE_WRITES_CASE, edgeWrites } from './edge-writes.ts';
import { collectionOperations, EMPTY_COLLECTION_CASE, emptyCollectionSkip } from './empty-collection.ts';
import { PAGING_CASE, pagingOf } from './paging.ts';
export type { AuthMode, RequestPlan } from './request-plan.ts';

/** What a case expects of the deployment. */
export type Expectation_ = 'success' | 'auth-rejected' | 'rejected' | 'presence' | 'update-persisted' | 'use-after-delete' | 'created-readable' | 'ownership' | 'semantic' | 'coverage' | 'unsupported-method' | 'object-access' | 'function-access' | 'put-idempotent' | 'refused-create' | 'mass-assignment' | 'empty-collection' | 'edge-writes' | 'repeated-create' | 'paging';

export interface PlannedCase {
  operationId: string;
  /** Stable case name; the test is named `<operationId> › <name>`. */
  name: string;
  kind: CaseKind;
  expectation: Expectation_;
  request: RequestPlan;
  /** Path ids come from records the run creates: none, one fixture shared by the operation, or a fresh one. */
  fixture: 'none' | 'shared' | 'fresh';
  expect: Expectation[];
  /** Set when the case cannot run under the plan's options: the named reason, and its kind. */
  skip?: string;
  skipKind?: SkipKind;
  /** A negative case that leaves out this required parameter (a header the user sends with -H cannot be left out). */
  omits?: OmittedParameter;
  /** A negative case any 4xx rejects correctly (the profile states no status for invalid input). */
  anyClientError?: true;
  /** What a negative case sends that the contract does not describe as valid (its tier: plan/input-tiers.ts). */
  inputClass?: InputClass;
  /**
   * A coverage case that sends only the variations a correct deployment must refuse (must-reject classes, never
   * the request unvaried): the operation's valid calls may not be made (an irreversible side effect without
   * --allow-irreversible, an unsafe method under --read-only), and it is gated as the negative cases are.
   */
  mustRefuseOnly?: true;
  /** Runs once every other case of the run has finished (the scheduler's last ones): it deletes records other cases may use. */
  runsLast?: true;
  /** Where the input a negative case varies is (plan/input-location.ts; one that leaves out a parameter: its `omits`). */
  location?: InputLocation;
}

export interface OperationPlan {
  operation: Operation;
  cases: PlannedCase[];
}

export interface PlanOptions {
  seed: number;
  readOnly: boolean;
  allowIrreversible: boolean;
  otpSource: boolean;
  /** Requests of the coverage phase per operation (0: no coverage phase). */
  maxExamples?: number;
  /** Random requests of the fuzzing phase per operation (0: no fuzzing phase). */
  fuzzExamples?: number;
  /** Sequences of the stateful phase per operation (0: none). */
  sequences?: number;
  /** The run's identities (--identity): another one's turns on the access cases. */
  identities?: readonly Identity[];
}

/** The case name of the coverage phase. */
export const COVERAGE_CASE = 'coverage';
/** The case name of the fuzzing phase (a coverage-kind case: the same skip rules apply). */
export const FUZZ_CASE = 'fuzzing';
/** Random requests of the fuzzing phase per operation by default (as many as Schemathesis draws by default). */
export const DEFAULT_FUZZ_EXAMPLES = 100;
/**
 * A default run sends at most this many fuzzing requests in all: past it, each operation that fuzzes draws its even
 * share, never fewer than MIN_DEFAULT_FUZZ_EXAMPLES. A small contract is fuzzed deeply; a contract of thousands of
 * operations still ends in minutes against a real gateway.
 */
export const FUZZ_RUN_BUDGET = 10_000;
export const MIN_DEFAULT_FUZZ_EXAMPLES = 10;

/** True when the operation gets a fuzzing case (with a fuzzing budget above 0). */
export function fuzzes(op: Operation): boolean {
  return op.method !== 'DELETE' && (hasInputs(op) || fuzzedPath(op).length > 0);
}

/** The fuzzing requests per operation of a run over these operations without `--fuzz-examples`. */
export function defaultFuzzExamples(operations: readonly Operation[]): number {
  let fuzzing = 0;
  for (const op of operations) if (fuzzes(op)) fuzzing++;
  return Math.max(MIN_DEFAULT_FUZZ_EXAMPLES, Math.min(DEFAULT_FUZZ_EXAMPLES, Math.floor(FUZZ_RUN_BUDGET / Math.max(1, fuzzing))));
}

/** The case name of the stateful sequences (see execute/phases/stateful.ts runSequences). */
export const SEQUENCE_CASE = 'lifecycle: sequences';
/** Sequences per operation by default, at most SEQUENCE_RUN_BUDGET in a run (never fewer than 1 each). */
export const DEFAULT_SEQUENCES = 3;
export const SEQUENCE_RUN_BUDGET = 3_000;

/**
 * True when the operation gets a sequences case: it acts on records (its path names them, or its body names
 * records of another create) and the contract says which operation makes every one of them.
 */
export function sequences(contract: Contract, op: Operation): boolean {
  const params = pathParamNames(op).filter((p) => !createsItself(contract, op, p));
  if (!params.every((p) => producerFor(contract, op, p) !== undefined)) return false;
  return params.length > 0 || referencedCreates(contract, op).length > 0;
}

/** The sequences per operation of a run over these operations without `--sequences`. */
export function defaultSequences(contract: Contract, operations: readonly Operation[]): number {
  let count = 0;
  for (const op of operations) if (sequences(contract, op)) count++;
  return Math.max(1, Math.min(DEFAULT_SEQUENCES, Math.floor(SEQUENCE_RUN_BUDGET / Math.max(1, count))));
}
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a run may send a request of this method with values it did not create (a real record's id). */
export function isSafe(op: Operation): boolean {
  return SAFE_METHODS.has(op.method);
}
const NOT_A_UUID = 'not-a-uuid';
const MALFORMED_JSON = '{"conformance-probe":';

/** True when the examples name every path record of the operation (the run makes none of them). */
function explicitParamsCover(op: Operation, explicit: Record<string, string>): boolean {
  const names = pathParamNames(op);
  return names.length > 0 && names.every((n) => n in explicit);
}

export function testName(c: Pick<PlannedCase, 'operationId' | 'name'>): string {
  return `${c.operationId} › ${c.name}`;
}

/** The operation that creates the record a path parameter names (see resources.ts). */
export function producerOf(contract: Contract, op: Operation, param: string): Operation | undefined {
  return producerFor(contract, op, param)?.producer;
}

/**
 * The contract's example value of a path parameter no described operation creates, for a read (GET, HEAD,
 * OPTIONS) whose record a GET of the same path can look up: such a read may take the example, once that GET shows
 * it names a record on the deployment (Fixtures.buildFixture; a 404 there leaves the read untested, as before). A
 * write never acts on a record the run did not make.
 */
export function pathExample(contract: Contract, op: Operation, param: string): { value: string; reader: Operation } | undefined {
  if (!SAFE_METHODS.has(op.method)) return undefined;
  const example = op.parameters.find((p) => p.in === 'path' && p.name === param)?.example;
  if (example === undefined || example === null || typeof example === 'object' || example === '') return undefined;
  const reader = readerFor(contract, op) ?? (op.method === 'GET' ? op : undefined);
  return reader ? { value: String(example), reader } : undefined;
}

/**
 * The value of a path parameter whose schema lists its values (`enum`, `const`) and that no described operation
 * creates: it names a choice (a relationship, a format, a kind), not a record the run must make or find. The
 * first listed value; the coverage phase sends the others.
 */
export function choiceValue(contract: Contract, op: Operation, param: string): string | undefined {
  const value = listedValue(op, param);
  return value === undefined || producerFor(contract, op, param) !== undefined ? undefined : value;
}

/** The first value a path parameter's schema lists (`enum`, `const`) that the schema itself accepts (a pattern may refuse one). */
export function listedValue(op: Operation, param: string): string | undefined {
  const schema = op.parameters.find((p) => p.in === 'path' && p.name === param)?.schema;
  if (schema === undefined) return undefined;
  const first = factsOf(schema).allowed?.find((v) => v !== null && typeof v !== 'object' && String(v) !== '' && accepts(schema, v) !== false);
  return first === undefined ? undefined : String(first);
}

/** The GET of the same record: the operation that reads back what PUT, PATCH or DELETE acted on. */
export function readerOf(contract: Contract, op: Operation): Operation | undefined {
  return readerFor(contract, op);
}

const paramNamesByPath = new Map<string, readonly string[]>();

export function pathParamNames(op: Operation): string[] {
  let names = paramNamesByPath.get(op.path);
  if (!names) {
    names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
    paramNamesByPath.set(op.path, names);
  }
  return names.slice();
}

/** The positive request body: the example when there is one, else one built from the schema. */
export function positiveBody(op: Operation, examples: Examples, random: Random): unknown {
  const example = examples.operations[op.operationId];
  if (example && 'body' in example) return example.body;
  if (!op.requestBody) return undefined;
  return withoutReadOnly(generate(op.requestBody.schema, random), op.requestBody.schema);
}

/**
 * The body with only what its schema requires (the required properties of a JSON object body, with the values
 * given), or undefined when nothing is left out: a record made for a case is asked for again with it when the
 * full body is refused (an optional field the deployment assigns itself, such as an id, may be what it refuses).
 */
export function requiredOnly(op: Operation, body: unknown): Record<string, unknown> | undefined {
  if (!op.requestBody || typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const required = new Set(factsOf(mergedShape(op.requestBody.schema)).required);
  const kept = Object.fromEntries(Object.entries(body).filter(([name]) => required.has(name)));
  return Object.keys(kept).length < Object.keys(body).length ? kept : undefined;
}

function choices(contract: Contract, op: Operation): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of pathParamNames(op)) {
    const value = choiceValue(contract, op, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

export function planOperation(contract: Contract, op: Operation, profile: Profile, examples: Examples, options: PlanOptions): OperationPlan {
  const random = new Random(`${options.seed}:${op.operationId}`);
  const example = examples.operations[op.operationId] ?? {};
  const body = positiveBody(op, examples, random);
  // A PUT that creates the record it names (no other operation produces the id) needs no record first.
  const params = pathParamNames(op).filter((p) => !createsItself(contract, op, p));
  const explicitParams = { ...choices(contract, op), ...(example.pathParams ?? {}) };
  const needsFixture = params.some((p) => !(p in explicitParams));
  const safe = SAFE_METHODS.has(op.method);
  const irreversible = isIrreversible(profile, op.operationId);
  // Valid calls of the operation may not be made: a broken deployment could act on them.
  const guardedOp = (irreversible && !options.allowIrreversible) || (options.readOnly && !safe);
  const cases: PlannedCase[] = [];

  const declared = {
    query: parameterValues(op, 'query', random),
    headers: stringValues(parameterValues(op, 'header', random)),
    cookies: stringValues(parameterValues(op, 'cookie', random)),
  };
  const base = (over: Partial<RequestPlan> = {}): RequestPlan => ({
    pathParams: { ...explicitParams },
    query: { ...declared.query, ...(example.query ?? {}) },
    ...(Object.keys(declared.headers).length > 0 ? { headers: declared.headers } : {}),
    ...(Object.keys(declared.cookies).length > 0 ? { cookies: declared.cookies } : {}),
    ...(body !== undefined && body !== UNKNOWN ? { body: structuredClone(body) } : {}),
    auth: 'valid',
    setup: example.setup ?? [],
    ...over,
  });
  const gate = (request: RequestPlan, kind: CaseKind, fixture: PlannedCase['fixture']): PlannedSkip | undefined =>
    skipReason(contract, profile, op, request, kind, fixture, options, body);

  const add = (c: Omit<PlannedCase, 'operationId' | 'skip' | 'skipKind' | 'expect'> & { expect?: Expectation[] }) => {
    // The coverage case of an operation whose valid calls may not be made sends what must be refused alone: it is
    // gated as a negative case, and needs no record of a setup step (a stand-in takes its values).
    const mustRefuseOnly = c.kind === 'coverage' && c.name === COVERAGE_CASE && guardedOp;
    // A case runs only the setup steps its own request uses (an auth case uses none: see withoutSetup).
    c.request = c.kind === 'auth' || mustRefuseOnly ? withoutSetup(c.request) : { ...c.request, setup: neededSetup(c.request) };
    // A semantic case may be answered with success (e.g. "not valid"): under --read-only it is not a probe that
    // must be rejected, so an unsafe method does not run.
    const skip: PlannedSkip | undefined =
      c.expectation === 'semantic' && options.readOnly && !safe ? { kind: 'read-only', reason: 'not a safe method (--read-only)' } : gate(c.request, mustRefuseOnly ? 'negative' : c.kind, c.fixture);
    cases.push({ operationId: op.operationId, expect: [], ...c, ...(skip ? { skip: skip.reason, skipKind: skip.kind } : mustRefuseOnly ? { mustRefuseOnly: true as const } : {}) });
  };

  // Presence probe: random ids and a malformed JSON body, so that no deployment acts on it.
  add({
    name: 'presence',
    kind: 'presence',
    expectation: 'presence',
    fixture: 'none',
    request: { pathParams: {}, query: {}, auth: 'valid', setup: [], ...(op.requestBody ? { rawBody: MALFORMED_JSON } : {}) },
  });

  // Positive cases.
  add({
    name: 'positive',
    kind: 'positive',
    expectation: 'success',
    fixture: needsFixture ? (op.method === 'DELETE' ? 'fresh' : 'shared') : 'none',
    request: base(),
    expect: example.expect ?? [],
  });
  // The same request in each other media type the body declares (form-urlencoded, multipart, ...).
  const otherMedia: Array<[RequestBodySpec, unknown]> = [];
  for (const media of (op.requestBodies ?? []).slice(1)) {
    const value = withoutReadOnly(generate(media.schema, random), media.schema);
    if (value === UNKNOWN || value === undefined) continue;
    otherMedia.push([media, value]);
    add({
      name: `positive: ${media.contentType}`,
      kind: 'positive',
      expectation: 'success',
      fixture: needsFixture ? (op.method === 'DELETE' ? 'fresh' : 'shared') : 'none',
      request: base({ body: value, contentType: media.contentType }),
    });
  }
  for (const extra of example.cases ?? []) {
    // A semantic case states what the answer must not claim (a refusal satisfies it too): run as a negative.
    add({
      name: `${extra.kind}: ${extra.name}`,
      kind: extra.kind === 'semantic' ? 'negative' : extra.kind,
      expectation: extra.kind === 'negative' ? 'rejected' : extra.kind === 'semantic' ? 'semantic' : 'success',
      ...(extra.kind === 'negative' ? { inputClass: 'example-negative' as const } : {}),
      fixture: needsFixture ? 'shared' : 'none',
      request: requestFrom(base(), extra),
      expect: extra.expect ?? [],
    });
  }

  // Auth matrix: the positive request with each credential that must be refused. A refused call has no side
  // effect, so these run for every operation; where a call wrongly let through could not be undone, or in
  // --read-only, the body is left out so a broken deployment cannot act on it.
  if (op.secured) {
    for (const [auth, label] of authVariantNames(op.auth?.[0])) {
      const request = guardedOp ? { pathParams: {}, query: {}, auth, setup: [] } : base({ auth });
      add({ name: `auth: ${label}`, kind: 'auth', expectation: 'auth-rejected', fixture: guardedOp || !needsFixture ? 'none' : 'shared', request });
    }
  }

  // Negative cases: each must be rejected with 400 in the documented form.
  const fixture: PlannedCase['fixture'] = needsFixture ? 'shared' : 'none';
  const negative = (name: string, request: RequestPlan, inputClass: InputClass, location: InputLocation = 'body') =>
    add({ name: `negative: ${name}`, kind: 'negative', expectation: 'rejected', fixture, request, inputClass, location });
  // Wrong JSON types only mean something in a JSON body (a form field is text whatever it holds).
  if (op.requestBody && /json/i.test(op.requestBody.contentType) && isPlainObject(body)) {
    // A top-level allOf (a base schema extended) is read as the one object its parts make.
    const schema = mergedShape(op.requestBody.schema);
    for (const field of schemaRequired(schema)) {
      if (!(field in body)) continue;
      const { [field]: _left, ...rest } = body;
      negative(`missing body field ${field}`, base({ body: rest }), 'missing-required');
    }
    for (const [field, propSchema] of Object.entries(schemaProperties(schema))) {
      if (isOmitted(propSchema)) continue;
      // A JSON kind no parser turns into the declared type (an array for a string, text for a number).
      const [wrong] = wrongKindValues(propSchema, body[field]);
      if (wrong !== undefined) negative(`wrong type for body field ${field}`, base({ body: { ...body, [field]: wrong } }), 'wrong-type');
      if (isInt32(propSchema)) {
        negative(`int32 out of range in body field ${field}`, base({ body: { ...body, [field]: INT32_MAX + 1 } }), 'bound');
        negative(`int32 below range in body field ${field}`, base({ body: { ...body, [field]: -INT32_MAX - 2 } }), 'bound');
      }
    }
  }
  // A field left out and a wrong kind in every other declared media type that carries them, a form's as text
  // (plan/media-negatives.ts); a form that is the first media type gets them too.
  const firstForm: Array<[RequestBodySpec, unknown, boolean]> = op.requestBody && isFormMedia(op.requestBody.contentType) ? [[op.requestBody, body, false]] : [];
  for (const [media, value, named] of [...firstForm, ...otherMedia.map(([m, v]): [RequestBodySpec, unknown, boolean] => [m, v, true])]) {
    for (const n of mediaNegatives(media, value, named)) negative(n.name, base({ body: n.body, contentType: media.contentType }), n.inputClass);
  }
  for (const p of op.parameters) {
    if (p.in === 'path' && schemaFormat(p.schema) === 'uuid') {
      negative(`non-uuid path id ${p.name}`, base({ pathParams: { ...explicitParams, [p.name]: NOT_A_UUID } }), 'invalid-format', 'path');
    }
    if (p.in === 'query' && isInt32(p.schema)) {
      negative(`int32 out of range in query ${p.name}`, base({ query: { ...declared.query, ...(example.query ?? {}), [p.name]: INT32_MAX + 1 } }), 'bound', 'query');
      negative(`int32 below range in query ${p.name}`, base({ query: { ...declared.query, ...(example.query ?? {}), [p.name]: -INT32_MAX - 2 } }), 'bound', 'query');
    }
  }

  // A required query, header or cookie parameter left out must be refused with a 4xx.
  for (const omitted of omittableParameters(op, profile)) {
    add({
      name: `negative: missing required ${omitted.in} parameter ${omitted.name}`,
      kind: 'negative',
      expectation: 'rejected',
      fixture,
      request: withoutParameter(base(), omitted),
      omits: omitted,
      inputClass: 'missing-required',
      ...(anyClientErrorRejects(profile) ? { anyClientError: true as const } : {}),
    });
  }

  // Coverage phase: schema-valid variations of the positive request (boundaries, enums, nulls, optional
  // fields); any server error is a finding, shrunk to the smallest failing request. A DELETE's on a record of
  // its own (its first valid request removes it).
  const maxExamples = options.maxExamples ?? DEFAULT_MAX_EXAMPLES;
  if (maxExamples > 0) {
    add({ name: COVERAGE_CASE, kind: 'coverage', expectation: 'coverage', fixture: needsFixture ? (op.method === 'DELETE' ? 'fresh' : 'shared') : 'none', request: base() });
  }
  // Fuzzing phase: random schema-valid requests (fast-check), shrunk on a server error; see execute/fuzz.ts.
  if ((options.fuzzExamples ?? DEFAULT_FUZZ_EXAMPLES) > 0 && fuzzes(op)) {
    add({ name: FUZZ_CASE, kind: 'coverage', expectation: 'coverage', fixture: needsFixture ? 'shared' : 'none', request: base() });
  }

  // Lifecycle chains: what PUT changed must read back; what DELETE removed must no longer be served.
  if ((op.method === 'PUT' || op.method === 'DELETE') && readerOf(contract, op)) {
    add({
      name: op.method === 'PUT' ? 'lifecycle: update persisted' : 'lifecycle: use after delete',
      kind: 'lifecycle',
      expectation: op.method === 'PUT' ? 'update-persisted' : 'use-after-delete',
      fixture: 'fresh',
      request: base(),
    });
  }
  // Mass assignment: a write sent what it must not set, where no chain above or below does: an update only on a
  // record the run made for it (never one the examples name), a create under the records its path names.
  const creates = isCreate(contract, op);
  if ((creates || needsFixture) && massAssignmentCase(contract, op)) {
    add({ name: MASS_ASSIGNMENT_CASE, kind: 'lifecycle', expectation: 'mass-assignment', fixture: creates ? (needsFixture ? 'shared' : 'none') : 'fresh', request: base() });
  }
  // Relations: a create's record is served by its readers; a child reader keeps each parent's children apart.
  if (isCreate(contract, op) && readersOfCreated(contract, op).length > 0) {
    add({ name: 'lifecycle: created record readable', kind: 'lifecycle', expectation: 'created-readable', fixture: needsFixture ? 'shared' : 'none', request: base() });
  }
  // A refused create leaves nothing behind: a marked body made invalid by one change, then the reads that would
  // show it stored (plan/refused-create.ts); a small sequence, so --sequences 0 leaves it out too.
  if ((options.sequences ?? DEFAULT_SEQUENCES) > 0 && plansRefusedCreate(contract, op, body)) {
    add({ name: REFUSED_CREATE_CASE, kind: 'lifecycle', expectation: 'refused-create', fixture: needsFixture ? 'shared' : 'none', request: base() });
  }
  // A create sent twice; a second record's values given to the first's updates; both listed (plan/repeated-create.ts).
  if ((options.sequences ?? DEFAULT_SEQUENCES) > 0 && repeatTargets(contract, op)) add({ name: REPEATED_CREATE_CASE, kind: 'lifecycle', expectation: 'repeated-create', fixture: needsFixture ? 'shared' : 'none', request: base() });
  // A read of a record after each write of it that stored a schema-valid boundary value (plan/edge-writes.ts); a
  // small sequence, so --sequences 0 leaves it out too.
  if ((options.sequences ?? DEFAULT_SEQUENCES) > 0 && edgeWrites(contract, op, (w) => options.allowIrreversible || !isIrreversible(profile, w.operationId)).length > 0) {
    add({ name: EDGE_WRITES_CASE, kind: 'lifecycle', expectation: 'edge-writes', fixture: 'fresh', request: base() });
  }
  // Stateful sequences: records made for the call alone (its path's and those its body names), the call, the
  // same call again on the state the first one left.
  if ((options.sequences ?? DEFAULT_SEQUENCES) > 0 && !explicitParamsCover(op, explicitParams) && sequences(contract, op)) {
    add({ name: SEQUENCE_CASE, kind: 'lifecycle', expectation: 'coverage', fixture: 'fresh', request: base() });
  }
  if (pagingOf(op)) add({ name: PAGING_CASE, kind: 'lifecycle', expectation: 'paging', fixture: needsFixture ? 'fresh' : 'none', request: base() }); // plan/paging.ts
  // A collection asked empty: its records deleted (the run's own; with --allow-irreversible those it lists too),
  // then the list again (plan/empty-collection.ts): a top-level one after every other case (it may delete their
  // records); a nested one under a parent made for it alone, among the others (nothing else is in that collection).
  const collection = (options.sequences ?? DEFAULT_SEQUENCES) > 0 ? collectionOperations(contract, profile, op) : undefined;
  if (collection) {
    add({ name: EMPTY_COLLECTION_CASE, kind: 'lifecycle', expectation: 'empty-collection', fixture: needsFixture ? 'fresh' : 'none', request: base(), ...(needsFixture ? {} : { runsLast: true as const }) });
    const planned = cases.at(-1)!;
    const gated = planned.skip === undefined ? emptyCollectionSkip(profile, collection, options) : undefined;
    if (gated) Object.assign(planned, gated);
  }
  const creator = op.method === 'GET' ? createOf(contract, op) : undefined;
  if (creator && pathParamNames(creator).length > 0) {
    add({ name: 'lifecycle: ownership', kind: 'lifecycle', expectation: 'ownership', fixture: 'fresh', request: { pathParams: {}, query: {}, auth: 'valid', setup: [] } });
  }

  // Access between identities (execute/phases/access.ts), with another identity's credential: the call on a record
  // the run created with its own (object level); the call by an identity whose declared scopes or roles lack what
  // the operation needs (function level). A write goes to a record made for the case alone.
  const others = (options.identities ?? []).filter((i) => i.name !== DEFAULT_IDENTITY && (i.token !== undefined || i.auth !== undefined));
  if (others.length > 0 && op.credentialed !== false) {
    const fixtureOf = (): PlannedCase['fixture'] => (needsFixture ? (safe ? 'shared' : 'fresh') : 'none');
    const lacks = (identity: Identity) => lackingFor(op, profile, identity);
    // An identity known to lack the operation's scope or role is refused whatever record it names: its call is the
    // function-level case only.
    if (needsFixture) {
      for (const identity of others) {
        const lacking = lacks(identity);
        if (!lacking.scopes && !lacking.roles) add({ name: `access: as ${identity.name}`, kind: 'lifecycle', expectation: 'object-access', fixture: fixtureOf(), request: base({ auth: `as:${identity.name}` }) });
      }
    }
    for (const identity of others) {
      const { scopes: lacksScopes, roles: lacksRoles } = lacks(identity);
      if (!lacksScopes && !lacksRoles) continue;
      add({ name: `access: as ${identity.name}, without ${lacksScopes ? 'scope' : 'role'}`, kind: 'lifecycle', expectation: 'function-access', fixture: fixtureOf(), request: base({ auth: `as:${identity.name}` }) });
    }
  }
  return { operation: op, cases };
}

/** Names of the setup steps a value's {{templates}} read from ("{{step./pointer}}", "{{otp:step./pointer}}"). */
function stepsNamed(value: unknown): Set<string> {
  const names = new Set<string>();
  for (const m of JSON.stringify(value ?? null).matchAll(/\{\{\s*(?:otp:)?([^.}\s]+)[.}]/g)) if (m[1] !== 'unique') names.add(m[1]!);
  return names;
}

/**
 * The setup steps a request needs: those its body, query and path values read from, and the steps those
 * read from in turn. A case that inherits the operation's setup but no longer uses it (a negative case without
 * the field, an example case with its own values) does not run it.
 */
export function neededSetup(request: Pick<RequestPlan, 'setup' | 'body' | 'query' | 'pathParams'>): SetupStep[] {
  if (request.setup.length === 0) return [];
  const needed = stepsNamed([request.body, request.query, request.pathParams]);
  for (const step of [...request.setup].reverse()) if (needed.has(step.as)) for (const n of stepsNamed([step.body, step.query])) needed.add(n);
  return request.setup.filter((step) => needed.has(step.as));
}

const STAND_IN = 'conformance-auth-probe';

/**
 * An auth case asks whether a call without valid credentials is refused: that needs no record of the run.
 * Values read from setup steps get a stand-in, and the steps are not run.
 */
export function withoutSetup(request: RequestPlan): RequestPlan {
  const replace = (v: unknown): unknown => {
    if (typeof v === 'string') return v.includes('{{') && stepsNamed(v).size > 0 ? STAND_IN : v;
    if (Array.isArray(v)) return v.map(replace);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replace(x)]));
    return v;
  };
  return {
    ...request,
    ...(request.body !== undefined ? { body: replace(request.body) } : {}),
    query: replace(request.query) as Record<string, unknown>,
    pathParams: replace(request.pathParams) as Record<string, string>,
    setup: [],
  };
}

function requestFrom(base: RequestPlan, example: RequestExample): RequestPlan {
  return {
    ...base,
    ...(example.body !== undefined ? { body: example.body } : {}),
    ...(example.query ? { query: example.query } : {}),
    ...(example.pathParams ? { pathParams: { ...base.pathParams, ...example.pathParams } } : {}),
    ...(example.setup ? { setup: example.setup } : {}),
  };
}

interface PlannedSkip {
  kind: SkipKind;
  reason: string;
}

function skipReason(
  contract: Contract,
  profile: Profile,
  op: Operation,
  request: RequestPlan,
  kind: CaseKind,
  fixture: PlannedCase['fixture'],
  options: PlanOptions,
  body: unknown,
): PlannedSkip | undefined {
  if (kind === 'presence') return undefined;
  const safe = SAFE_METHODS.has(op.method);
  if (options.readOnly) {
    if ((kind === 'positive' || kind === 'lifecycle' || kind === 'coverage') && !safe) return { kind: 'read-only', reason: 'not a safe method (--read-only)' };
    if (fixture !== 'none' || request.setup.length > 0) return { kind: 'read-only', reason: 'needs records created by the run (--read-only)' };
    if (kind === 'negative' && isIrreversible(profile, op.operationId)) {
      return { kind: 'read-only', reason: `irreversible side effect if wrongly accepted (${sideEffectOf(profile, op.operationId)?.effect}) (--read-only)` };
    }
  }
  if (!options.allowIrreversible) {
    const effect = sideEffectOf(profile, op.operationId);
    if ((kind === 'positive' || kind === 'lifecycle' || kind === 'coverage') && effect?.class === 'irreversible') {
      return { kind: 'irreversible', reason: `irreversible side effect: ${effect.effect}; runs against the embedded reference service or with --allow-irreversible` };
    }
    for (const step of request.setup) {
      const stepEffect = sideEffectOf(profile, step.operation);
      if (stepEffect?.class === 'irreversible') {
        return { kind: 'irreversible', reason: `needs ${step.operation} first (irreversible: ${stepEffect.effect}); pass --allow-irreversible` };
      }
    }
  }
  if ((kind === 'positive' || kind === 'lifecycle' || kind === 'negative' || kind === 'coverage') && op.requestBody && request.body === undefined && request.rawBody === undefined) {
    return {
      kind: 'no-request',
      reason: body === UNKNOWN
        ? 'request body cannot be built: a required field has no type in the contract (add an example in contract/examples.yaml)'
        : 'no request body could be built for this operation',
    };
  }
  if (!options.otpSource && JSON.stringify(request.body ?? null).includes('{{otp:')) {
    return { kind: 'otp-source', reason: 'needs the one-time password: no OTP source configured (--otp-source-url)' };
  }
  for (const step of request.setup) {
    if (!contract.operations.some((o) => o.operationId === step.operation)) {
      return { kind: 'no-producer', reason: `setup step "${step.as}" names ${step.operation}, which the contract does not describe` };
    }
  }
  if (fixture !== 'none') {
    for (const param of pathParamNames(op)) {
      if (param in request.pathParams) continue;
      const producer = producerOf(contract, op, param);
      if (!producer && fixture === 'shared' && pathExample(contract, op, param)) continue;
      if (!producer && namesValue(contract, op, param)) continue;
      if (!producer) return { kind: 'no-producer', reason: `no described operation creates the record for path parameter {${param}}` };
      const effect = sideEffectOf(profile, producer.operationId);
      if (effect?.class === 'irreversible' && !options.allowIrreversible) {
        return { kind: 'irreversible', reason: `the record for {${param}} comes from ${producer.operationId} (irreversible); pass --allow-irreversible` };
      }
    }
  }
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isInt32(schema: JsonSchema): boolean {
  return schemaFormat(schema) === 'int32' && schemaTypes(schema).includes('integer');
}
