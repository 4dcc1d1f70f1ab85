/**
 * The engine against faulty deployments: each deployment starts the reference service with faults (a `variant`),
 * runs the conformance CLI against it as a child process and reads results.json. A fault must fail exactly
 * the operation it breaks, through the check that names it: several faults share a deployment where each sits on
 * its own operation and none breaks what another's checks read, and the run fails exactly their operations. The
 * variations the seed allows must pass.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, describe, expect, test } from 'vitest';
import { OPERATION_IDS, type Handler, type HandlerRequest, type Reply, type Variant } from '../../src/reference-service/index.ts';
import type { CheckId, Exchange, RunResults } from '../../src/runner/model.ts';
import {
  allFindings,
  checkIds,
  DESCRIBED,
  failing,
  findings,
  never,
  objectBody,
  operation,
  outcomes,
  pool,
  removeTemps,
  replyCode,
  requireResults,
  resultsSchemaErrors,
  runCli,
  startVariant,
  summary,
  tokenLeaks,
  TOKEN,
  type CliRun,
  type DescribedOperation,
  type StartedVariant,
} from '../support/runs.ts';
import { expectReportsAgree } from '../support/reports-agree.ts';
import { curlLines, expectLinesReplay } from '../support/replay.ts';

const limit = pool(3);
const RUN_TIMEOUT = 300_000;

afterAll(removeTemps);

interface Target {
  variant: () => Variant;
  tokenVia: 'flag' | 'env';
  args?: string[];
  /** Called while the variant still runs, after the CLI finished. */
  probe?: (started: StartedVariant) => Promise<void>;
}

/** Starts the variant, runs the CLI against it (at most three runs at once), closes the variant. */
function runAgainst(target: Target): Promise<CliRun> {
  return limit(async () => {
    const started = await startVariant(target.variant());
    try {
      const { args, env } = started.target(target.tokenVia);
      // The evidence below reads passed cases' exchanges too, which a run keeps only when asked.
      const run = await runCli([...args, '--quiet', '--keep-passed-exchanges', ...(target.args ?? [])], { env });
      // Every curl line the console printed answers, pasted now, the status the line states.
      await expectLinesReplay(run, { CONFORMANCE_TOKEN: TOKEN });
      await target.probe?.(started);
      return run;
    } finally {
      await started.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------------------
// Building blocks of the variants

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Wraps the faithful reply of a successful call; other replies (validation, not found) stay as they are. */
function onSuccess(change: (reply: Reply, req: HandlerRequest) => Reply): Handler {
  return async (req, next) => {
    const reply = await next();
    return reply.status === 200 ? change(reply, req) : reply;
  };
}

/** Wraps the validation answer of a call (400 with the VALIDATION_ERROR envelope); other replies stay as they are. */
function onValidationError(change: (reply: Reply, req: HandlerRequest) => Reply): Handler {
  return async (req, next) => {
    const reply = await next();
    return reply.status === 400 && replyCode(reply) === 'VALIDATION_ERROR' ? change(reply, req) : reply;
  };
}

/** What an ASP.NET service that appends the exception to its error message answers (the frames end with CR LF). */
const DOTNET_TRACE = [
  'System.ArgumentException: Value does not fall within the expected range.',
  '   at Customer.Api.Validation.AddressTypeValidator.Validate(AddressTypeRequest request) in /src/Customer.Api/Validation/AddressTypeValidator.cs:line 31',
  '   at Customer.Api.Controllers.AddressTypesController.Create(AddressTypeRequest request) in /src/Customer.Api/Controllers/AddressTypesController.cs:line 54',
  '   at lambda_method12(Closure, Object, Object[])',
].join('\r\n');

/** The same handler for every operation the reference service serves. */
function everyOperation(handler: Handler): Record<string, Handler> {
  return Object.fromEntries(OPERATION_IDS.map((id) => [id, handler]));
}

const serverError = (): Reply => ({ status: 500, body: { error: { code: 'ERROR', message: 'something broke' } } });

function isValidFieldUpdate(req: HandlerRequest): boolean {
  const b = req.body;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
  const body = b as Record<string, unknown>;
  const n = body['sequenceNumber'];
  return (
    UUID.test(req.params['id'] ?? '') &&
    UUID.test(req.params['fieldId'] ?? '') &&
    typeof body['fieldKey'] === 'string' &&
    typeof body['isActive'] === 'boolean' &&
    typeof body['isMandatory'] === 'boolean' &&
    typeof n === 'number' &&
    Number.isInteger(n) &&
    n >= -(2 ** 31) &&
    n < 2 ** 31 &&
    (body['isVisible'] === undefined || typeof body['isVisible'] === 'boolean') &&
    (body['separatorMark'] === undefined || typeof body['separatorMark'] === 'string')
  );
}

/** Adds a property to every object in a JSON value (records, list items, pages, error envelopes). */
function withExtra(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withExtra);
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return value;
  return { ...Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withExtra(v)])), conformanceExtra: 'allowed' };
}

// ---------------------------------------------------------------------------------------------------------
// Evidence read from results.json

function exchangesOf(results: RunResults, operationId: string, caseName?: string): Exchange[] {
  return operation(results, operationId)
    .cases.filter((c) => caseName === undefined || c.name === caseName)
    .flatMap((c) => c.exchanges);
}

function positiveJson(results: RunResults, operationId: string): unknown {
  const exchange = exchangesOf(results, operationId, 'positive').at(-1);
  return exchange?.response?.json;
}

/** Every answered exchange of the run. */
function answered(results: RunResults): Exchange[] {
  return results.operations.flatMap((o) => o.cases.flatMap((c) => c.exchanges)).filter((e) => e.response !== undefined);
}

// ---------------------------------------------------------------------------------------------------------
// Faults: each breaks one operation. A deployment plants several, each on its own operation, where what one breaks
// is read by none of the others' checks: each is still found on its operation by its check, and the failing set is
// exactly the planted faults' operations. The readers that the writers' lifecycle cases read back through each go
// into a deployment whose writers are sound; the writers' own lifecycle faults go into the one whose readers are.

interface Fault {
  variant: () => Variant;
  operation: DescribedOperation;
  outcome: 'failed' | 'missing';
  /** The check whose error finding names the fault; absent when only a scenario assertion can see it. */
  check?: CheckId;
  /** Set while the engine misjudges this fault: the row is expected to fail until the engine is fixed. */
  more?: (results: RunResults, run: CliRun) => void;
  /** Operations whose positive case the fault keeps from running: untested, never passed. */
  untested?: DescribedOperation[];
}

interface Deployment {
  tokenVia: Target['tokenVia'];
  args?: string[];
  faults: Array<[string, Fault]>;
}

const DEPLOYMENTS: Array<[string, Deployment]> = [
  [
    'a reader whose schema breaks beside a missing route, a route answered 501, a list with a wrong field type, invalid input accepted, and two required fields left out',
    {
      tokenVia: 'env',
      faults: [
        [
          'a wrong field type in the reader the lifecycle chains use: the writers are not blamed',
          {
            variant: () => ({
              handlers: {
                'get-address-type-field-by-id': onSuccess((reply) => {
                  const body = objectBody(reply);
                  return { ...reply, body: { ...body, sequenceNumber: String(body['sequenceNumber']) } };
                }),
              },
            }),
            operation: 'get-address-type-field-by-id',
            outcome: 'failed',
            check: 'response-schema-conformance',
            more: (results) => {
              // The update's check reads the record back: a reader that breaks its schema cannot vouch for it.
              const update = operation(results, 'update-address-type-field').cases.find((c) => c.kind === 'lifecycle');
              expect(update?.outcome).toBe('skipped');
              expect(update?.skipReason).toMatch(/get-address-type-field-by-id/);
              // A delete is judged by the status of the read after it, which such a reader still answers truthfully.
              const deleted = operation(results, 'delete-address-type-field').cases.find((c) => c.name === 'lifecycle: use after delete');
              expect(deleted?.outcome).toBe('passed');
            },
          },
        ],
        [
          'a missing route (removeOperations) is missing',
          {
            variant: () => ({ removeOperations: ['customer-get-cache-key-list'] }),
            operation: 'customer-get-cache-key-list',
            outcome: 'missing',
            check: 'operation-present',
            more: (results) => {
              const op = operation(results, 'customer-get-cache-key-list');
              for (const c of op.cases.filter((x) => x.kind !== 'presence')) {
                expect(c.outcome, c.name).toBe('skipped');
                expect(c.skipReason).toMatch(/missing/);
              }
            },
          },
        ],
        [
          'a route answered 501 without the envelope is missing',
          {
            variant: () => ({ handlers: { 'update-address-type': () => ({ status: 501, body: { message: 'Not Implemented' } }) } }),
            operation: 'update-address-type',
            outcome: 'missing',
            check: 'operation-present',
          },
        ],
        [
          'a wrong field type in a response (sequenceNumber as a string)',
          {
            variant: () => ({
              handlers: {
                'get-address-type-field-list': onSuccess((reply) => ({
                  ...reply,
                  body: (reply.body as Array<Record<string, unknown>>).map((f) => ({ ...f, sequenceNumber: String(f['sequenceNumber']) })),
                })),
              },
            }),
            operation: 'get-address-type-field-list',
            outcome: 'failed',
            check: 'response-schema-conformance',
            more: (results) => {
              const schemaErrors = findings(operation(results, 'get-address-type-field-list')).flatMap((f) => f.schemaErrors ?? []);
              expect(schemaErrors.map((e) => e.instancePath)).toContainEqual(expect.stringMatching(/^\/\d+\/sequenceNumber$/));
            },
          },
        ],
        [
          'invalid input accepted (create-address-type without code answers 200)',
          {
            variant: () => ({
              handlers: {
                'create-address-type': (req, next) => {
                  const body = req.body;
                  if (typeof body === 'object' && body !== null && !Array.isArray(body) && !('code' in body)) (body as Record<string, unknown>)['code'] = 'filled-in';
                  return next();
                },
              },
            }),
            operation: 'create-address-type',
            outcome: 'failed',
            check: 'negative-data-rejected',
            more: (results) => {
              const cases = operation(results, 'create-address-type').cases;
              expect(cases.find((c) => c.name === 'positive')?.outcome).toBe('passed');
              expect(cases.find((c) => c.name === 'negative: missing body field code')?.outcome).toBe('failed');
              expect(cases.find((c) => c.name === 'negative: missing body field name')?.outcome).toBe('passed');
            },
          },
        ],
        [
          'a required non-nullable response field left out (Counter)',
          {
            variant: () => ({
              handlers: {
                'get-foreign-trade-reference-number': onSuccess((reply) => {
                  const { Counter: _left, ...rest } = objectBody(reply);
                  return { ...reply, body: rest };
                }),
              },
            }),
            operation: 'get-foreign-trade-reference-number',
            outcome: 'failed',
            check: 'response-schema-conformance',
          },
        ],
        [
          'a required response field left out (TransactionId); the verify step that needs it is skipped',
          {
            variant: () => ({
              handlers: {
                'send-forget-password-otp': onSuccess((reply) => {
                  const { TransactionId: _left, ...rest } = objectBody(reply);
                  return { ...reply, body: rest };
                }),
              },
            }),
            operation: 'send-forget-password-otp',
            outcome: 'failed',
            check: 'response-schema-conformance',
            untested: ['verify-forget-password-otp'],
            more: (results) => {
              const positive = operation(results, 'verify-forget-password-otp').cases.find((c) => c.name === 'positive');
              expect(positive?.outcome).toBe('skipped');
              expect(positive?.skipReason).toMatch(/OTP source|one-time password/);
            },
          },
        ],
      ],
    },
  ],
  [
    'a reader answering a non-uuid id beside two wrong answers to valid calls, a stack trace in validation answers, and a list that never answers (--timeout 1500)',
    {
      tokenVia: 'flag',
      args: ['--timeout', '1500'],
      faults: [
        [
          'a non-uuid id in a response',
          {
            variant: () => ({ handlers: { 'get-address-type-field-by-id': onSuccess((reply) => ({ ...reply, body: { ...objectBody(reply), id: 'field-1' } })) } }),
            operation: 'get-address-type-field-by-id',
            outcome: 'failed',
            check: 'response-schema-conformance',
            more: (results) => {
              const schemaErrors = findings(operation(results, 'get-address-type-field-by-id')).flatMap((f) => f.schemaErrors ?? []);
              expect(schemaErrors.map((e) => e.instancePath)).toContain('/id');
            },
          },
        ],
        [
          'a wrong content type (text/plain on a JSON response)',
          {
            variant: () => ({ handlers: { 'customer-get-cache-key-list': onSuccess((reply) => ({ ...reply, headers: { 'content-type': 'text/plain' } })) } }),
            operation: 'customer-get-cache-key-list',
            outcome: 'failed',
            check: 'content-type-conformance',
          },
        ],
        [
          'an error answered without the body the contract declares (409 with an empty body)',
          {
            variant: () => ({ handlers: { 'update-address-type': onSuccess(() => ({ status: 409 })) } }),
            operation: 'update-address-type',
            outcome: 'failed',
            check: 'response-schema-conformance',
            more: (results) => {
              const f = findings(operation(results, 'update-address-type')).find((x) => x.check === 'response-schema-conformance');
              expect(f?.message).toMatch(/409 has no body; the contract declares application\/json/);
            },
          },
        ],
        [
          'a hang (one operation never answers) ends in timeouts, in bounded time',
          {
            variant: () => ({ handlers: { 'get-address-type-field-list': () => never() } }),
            operation: 'get-address-type-field-list',
            outcome: 'failed',
            check: 'response-timeout',
            more: (results, run) => {
              expect(run.wallMs).toBeLessThan(45_000);
              const op = operation(results, 'get-address-type-field-list');
              const timedOut = op.cases.filter((c) => c.findings.some((f) => f.check === 'response-timeout'));
              expect(timedOut.length).toBeGreaterThan(0);
              for (const c of timedOut) {
                expect(c.outcome).toBe('failed');
                expect(c.findings.find((f) => f.check === 'response-timeout')).toMatchObject({ severity: 'error', expected: 'a response within 1500 ms' });
              }
              // After two timeouts the operation's other requests are not sent: those cases say so.
              const skipped = op.cases.filter((x) => x.outcome === 'skipped');
              expect(skipped.length).toBeGreaterThan(0);
              for (const c of skipped) expect(c.skipKind, c.name).toBe('timed-out');
            },
          },
        ],
        [
          'a stack trace in a validation answer (a .NET trace in the envelope message of create-address-type)',
          {
            variant: () => ({
              handlers: {
                'create-address-type': onValidationError((reply) => {
                  const error = objectBody(reply)['error'] as Record<string, unknown>;
                  return { ...reply, body: { error: { ...error, message: `${String(error['message'])}\r\n${DOTNET_TRACE}` } } };
                }),
              },
            }),
            operation: 'create-address-type',
            outcome: 'failed',
            check: 'stack-trace-not-exposed',
            more: (results) => {
              const op = operation(results, 'create-address-type');
              const errors = findings(op).filter((f) => f.severity === 'error');
              expect([...new Set(errors.map((f) => f.check))]).toEqual(['stack-trace-not-exposed']);
              // Found on the refusals, each named by its call and status, quoting the first frame only (a folded repeat names the case shown first).
              for (const f of errors) expect(f.message).toMatch(/^(?:the same as in "[^"]+": )?POST \S+ answered 400 with a \.NET stack trace in its body \(first frame: at Customer\.Api\.Validation\.AddressTypeValidator\.Validate/);
              expect(errors.some((f) => f.message.includes('AddressTypesController'))).toBe(false);
              expect(op.cases.find((c) => c.name === 'positive')?.outcome).toBe('passed');
            },
          },
        ],
        [
          'an undocumented status: 418 on a positive call',
          {
            variant: () => ({ handlers: { 'customer-refresh-cache': onSuccess((reply) => ({ ...reply, status: 418 })) } }),
            operation: 'customer-refresh-cache',
            outcome: 'failed',
            check: 'status-code-conformance',
          },
        ],
      ],
    },
  ],
  [
    'a reader answering 404 to its positive calls beside a vendor media type, an envelope missing on a 409, auth not enforced and a 500 on a create',
    {
      tokenVia: 'flag',
      faults: [
        [
          'an undocumented status: 404 with the envelope on a positive call',
          {
            variant: () => ({ handlers: { 'get-address-type-field-by-id': onSuccess(() => ({ status: 404, body: { error: { code: 'ERR_PLAT_4', message: 'not found' } } })) } }),
            operation: 'get-address-type-field-by-id',
            outcome: 'failed',
            check: 'status-code-conformance',
            more: (results) => {
              // A 404 carrying the envelope is the service's own answer: the operation is present.
              expect(operation(results, 'get-address-type-field-by-id').cases.find((c) => c.name === 'presence')?.outcome).toBe('passed');
              // The writers read their records back through it: their lifecycle cases cannot run, and are skipped.
              const lifecycle = operation(results, 'update-address-type-field').cases.find((c) => c.kind === 'lifecycle');
              expect(lifecycle?.outcome).toBe('skipped');
              expect(lifecycle?.skipReason).toMatch(/get-address-type-field-by-id answered 404/);
            },
          },
        ],
        [
          'a +json media type where application/json is declared (a vendor type on a list)',
          {
            variant: () => ({ handlers: { 'customer-get-cache-key-list': onSuccess((reply) => ({ ...reply, headers: { 'content-type': 'application/vnd.customer+json' } })) } }),
            operation: 'customer-get-cache-key-list',
            outcome: 'failed',
            check: 'content-type-conformance',
          },
        ],
        [
          'the error envelope missing on a 409',
          {
            variant: () => ({ handlers: { 'update-address-type': onSuccess(() => ({ status: 409, body: { message: 'conflict' } })) } }),
            operation: 'update-address-type',
            outcome: 'failed',
            check: 'error-envelope-conformance',
          },
        ],
        [
          'auth not enforced (skipAuth on a GET)',
          {
            variant: () => ({ skipAuth: ['get-address-type-field-list'] }),
            operation: 'get-address-type-field-list',
            outcome: 'failed',
            check: 'auth-enforced',
            more: (results) => {
              const auth = operation(results, 'get-address-type-field-list').cases.filter((c) => c.kind === 'auth');
              expect(auth.map((c) => c.name)).toEqual([
                'auth: no token',
                'auth: empty bearer token',
                'auth: Basic scheme',
                'auth: malformed token',
                'auth: wrong token',
                'auth: valid token truncated',
                'auth: valid token with one character changed',
              ]);
              expect(auth.every((c) => c.outcome === 'failed')).toBe(true);
            },
          },
        ],
        [
          'a 500 with the envelope on a positive call',
          {
            variant: () => ({ handlers: { 'create-user': onSuccess(serverError) } }),
            operation: 'create-user',
            outcome: 'failed',
            check: 'not-a-server-error',
          },
        ],
      ],
    },
  ],
  [
    "the field writers' lifecycle faults (a refused create stored, a delete that keeps, an update that changes nothing) beside a GET answering 500, a mass assignment and an envelope missing on a 500",
    {
      tokenVia: 'env',
      faults: [
        [
          'a refused create stored anyway (create-address-type-field answers 400 and keeps the record)',
          {
            variant: () => ({
              handlers: {
                // The refusal is the faithful one; the record is stored all the same, what the body lacks filled in.
                'create-address-type-field': async (req, next) => {
                  const reply = await next();
                  const b = req.body;
                  if (reply.status !== 400 || !UUID.test(req.params['id'] ?? '') || typeof b !== 'object' || b === null || Array.isArray(b)) return reply;
                  const body = b as Record<string, unknown>;
                  const n = body['sequenceNumber'];
                  req.body = {
                    fieldKey: typeof body['fieldKey'] === 'string' ? body['fieldKey'] : 'stored-anyway',
                    isMandatory: body['isMandatory'] === true,
                    sequenceNumber: typeof n === 'number' && Number.isInteger(n) && Math.abs(n) < 2 ** 31 ? n : 0,
                    ...(typeof body['separatorMark'] === 'string' ? { separatorMark: body['separatorMark'] } : {}),
                  };
                  await next();
                  return reply;
                },
              },
            }),
            operation: 'create-address-type-field',
            outcome: 'failed',
            check: 'failed-create-no-side-effects',
            more: (results) => {
              const cases = operation(results, 'create-address-type-field').cases;
              expect(cases.filter((c) => c.outcome === 'failed').map((c) => c.name)).toEqual(['lifecycle: refused create leaves nothing']);
              expect(findings(operation(results, 'create-address-type-field')).filter((f) => f.severity === 'error').map((f) => f.check)).toEqual(['failed-create-no-side-effects']);
            },
          },
        ],
        [
          'a deleted record still served (delete answers 200 and keeps it)',
          {
            variant: () => ({
              handlers: { 'delete-address-type-field': (req, next) => (UUID.test(req.params['id'] ?? '') && UUID.test(req.params['fieldId'] ?? '') ? { status: 200, body: {} } : next()) },
            }),
            operation: 'delete-address-type-field',
            outcome: 'failed',
            check: 'use-after-delete',
            more: (results) => {
              const cases = operation(results, 'delete-address-type-field').cases;
              expect(cases.find((c) => c.name === 'positive')?.outcome).toBe('passed');
              expect(cases.find((c) => c.name === 'lifecycle: use after delete')?.outcome).toBe('failed');
            },
          },
        ],
        [
          'an update not persisted (update answers 200 and changes nothing)',
          {
            variant: () => ({ handlers: { 'update-address-type-field': (req, next) => (isValidFieldUpdate(req) ? { status: 200, body: {} } : next()) } }),
            operation: 'update-address-type-field',
            outcome: 'failed',
            check: 'update-persisted',
          },
        ],
        [
          'a 500 on every valid call of a GET, its presence probe included, is failed, not missing',
          {
            variant: () => ({ handlers: { 'customer-get-cache-key-list': onSuccess(serverError) } }),
            operation: 'customer-get-cache-key-list',
            outcome: 'failed',
            check: 'not-a-server-error',
          },
        ],
        [
          'an update applies `code`, which the update does not accept (it answers the record it changed: no read shows an address type)',
          {
            variant: () => ({
              handlers: {
                'update-address-type': onSuccess((reply, req) => {
                  // Answered 200: the body was an object the update took.
                  const body = req.body as Record<string, unknown>;
                  return typeof body['code'] === 'string' ? { ...reply, body: { id: req.params['id'], ...body } } : reply;
                }),
              },
            }),
            operation: 'update-address-type',
            outcome: 'failed',
            check: 'mass-assignment',
            more: (results) => {
              const found = findings(operation(results, 'update-address-type')).filter((f) => f.check === 'mass-assignment');
              expect(found.map((f) => f.message)).toEqual(['PUT /address-types/{id} applied `code`, which its request schema does not accept (as its answer shows).']);
              expect(found[0]?.faultCode).toBe(203);
            },
          },
        ],
        [
          'the error envelope missing on a 500',
          {
            variant: () => ({ handlers: { 'delete-address-type': onSuccess(() => ({ status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' })) } }),
            operation: 'delete-address-type',
            outcome: 'failed',
            check: 'error-envelope-conformance',
            more: (results) => {
              expect(checkIds(operation(results, 'delete-address-type'), 'error')).toContain('not-a-server-error');
            },
          },
        ],
      ],
    },
  ],
];

/** What every run of this file must satisfy, whatever the deployment did. */
async function assertSound(run: CliRun): Promise<void> {
  expect(await tokenLeaks(run)).toEqual([]);
  expect(resultsSchemaErrors(requireResults(run))).toEqual([]);
  await expectReportsAgree(run);
}

/** One variant with every fault of a deployment planted on the base. */
function plant(base: Variant, faults: Fault[]): Variant {
  const variants = faults.map((f) => f.variant());
  return {
    ...base,
    handlers: Object.assign({}, ...variants.map((v) => v.handlers ?? {})) as Record<string, Handler>,
    removeOperations: variants.flatMap((v) => v.removeOperations ?? []),
    skipAuth: variants.flatMap((v) => v.skipAuth ?? []),
  };
}

const plantedOperations = (faults: Fault[]): string[] => DESCRIBED.filter((id) => faults.some((f) => f.operation === id));

/** The run as a whole: exit 1, and exactly the planted operations fail; every other one passed or, where a fault keeps its positive case from running, is untested. */
async function assertOnlyPlantedFail(faults: Fault[], run: CliRun): Promise<void> {
  expect(run.code, run.stderr).toBe(1);
  const results = requireResults(run);
  await assertSound(run);
  expect(results.verdict).toBe('not-conformant');
  const planted = plantedOperations(faults);
  expect(failing(results), summary(results).join('\n')).toEqual(planted);
  const others = Object.entries(outcomes(results)).filter(([id]) => !planted.includes(id));
  const untested = new Set<string>(faults.flatMap((f) => f.untested ?? []));
  expect(Object.fromEntries(others)).toEqual(Object.fromEntries(others.map(([id]) => [id, untested.has(id) ? 'untested' : 'passed'])));
}

/** One fault of the run: found on its operation, by its check, with a curl line stating the answer. */
function assertFault(fault: Fault, run: CliRun): void {
  const results = requireResults(run);
  const op = operation(results, fault.operation);
  expect(op.outcome).toBe(fault.outcome);
  // The faulty operation's failing finding is printed with a curl line stating its answer (replayed above where it
  // needs no record made first); a timeout has no answer to state.
  const lines = curlLines(run.stdout).filter((l) => l.operation === fault.operation);
  if (fault.check === 'response-timeout') expect(lines).toEqual([]);
  else expect(lines.length, run.stdout.slice(0, 4000)).toBeGreaterThan(0);
  if (fault.check) expect(checkIds(op, 'error')).toContain(fault.check);
  if (fault.outcome === 'missing') {
    const presence = op.cases.find((c) => c.kind === 'presence');
    expect(presence?.outcome).toBe('missing');
    expect(presence?.findings.map((f) => f.check)).toContain('operation-present');
  }
  fault.more?.(results, run);
}

/**
 * Every fault is planted twice: on the reference deployment, which refuses input it does not bind, and on its
 * lenient twin, which binds as most frameworks do (a JSON body under any media type, null as not given, coerced
 * scalars): a correct deployment may be either, and each fault is found on both.
 */
const BASES: Array<[string, Variant]> = [
  ['strict', {}],
  ['lenient', { lenient: true }],
];

describe.concurrent.each(BASES)('faulty deployments (%s base): exit 1, exactly the faulty operations fail', (_base, base) => {
  describe.each(DEPLOYMENTS)('%s', (_name, deployment) => {
    const faults = deployment.faults.map(([, f]) => f);
    let run: Promise<CliRun> | undefined;
    const planted = (): Promise<CliRun> =>
      (run ??= runAgainst({ variant: () => plant(base, faults), tokenVia: deployment.tokenVia, ...(deployment.args ? { args: deployment.args } : {}) }));
    test(`exactly ${plantedOperations(faults).join(', ')} fail; every other operation passes`, async () => {
      await assertOnlyPlantedFail(faults, await planted());
    }, RUN_TIMEOUT);
    test.each(deployment.faults)('%s', async (_name, fault) => {
      assertFault(fault, await planted());
    }, RUN_TIMEOUT);
  });
});

test.concurrent(
  'the lenient twin of the reference deployment is conformant with the default options; what it takes leniently is listed apart',
  async () => {
    const run = await runAgainst({ variant: () => ({ lenient: true }), tokenVia: 'env' });
    const results = requireResults(run);
    await assertSound(run);
    expect(run.code, `${summary(results).join('\n')}\n${run.stderr}`).toBe(0);
    expect(results.verdict).toBe('conformant');
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
    const lenient = allFindings(results).filter((f) => f.lenient);
    expect(lenient.every((f) => f.severity === 'warning' && f.check === 'negative-data-rejected')).toBe(true);
    // It reads a JSON body under another media type, null as not given, and coerced scalars: each listed as such.
    const classes = new Set(lenient.map((f) => f.inputClass));
    for (const c of ['undeclared-media-type', 'null', 'coercible-type']) expect(classes, [...classes].join(', ')).toContain(c);
    expect(results.acceptedLeniently).toMatchObject({ cases: lenient.length, operations: new Set(lenient.map((f) => f.operationId)).size });
    expect(run.stdout + run.stderr).toMatch(/Accepted leniently: \d+ requests? in \d+ cases? of \d+ operations?/);
  },
  RUN_TIMEOUT,
);

// ---------------------------------------------------------------------------------------------------------
// A fault only a scenario's own assertion can see: reported as that scenario's failure, no operation blamed

test.concurrent(
  'a reference counter that does not advance: the scenario fails, no described operation is blamed',
  async () => {
    const run = await runAgainst({
      variant: () => ({ handlers: { 'get-foreign-trade-reference-number': onSuccess((reply) => ({ ...reply, body: { ...objectBody(reply), Counter: 1 } })) } }),
      tokenVia: 'flag',
    });
    expect(run.code, run.stderr).toBe(1);
    await assertSound(run);
    const results = requireResults(run);
    expect(failing(results)).toEqual([]);
    const scenarios = results.operations.filter((o) => o.group === 'scenarios');
    expect(scenarios.map((o) => `${o.operationId}: ${o.outcome}`)).toEqual([
      'scenario: foreign-trade reference numbers > a generated reference validates, and the counter advances: failed',
    ]);
    expect(scenarios[0]?.cases[0]?.errorMessage).toMatch(/greater than/);
    expect(results.verdict).toBe('not-conformant');
  },
  RUN_TIMEOUT,
);

// ---------------------------------------------------------------------------------------------------------
// A producer fault: the operation that creates the records others need

const DEPENDANTS: DescribedOperation[] = [
  'create-address-type-field',
  'delete-address-type',
  'delete-address-type-field',
  'get-address-type-field-by-id',
  'get-address-type-field-list',
  'update-address-type',
  'update-address-type-field',
];

let producerRun: Promise<CliRun> | undefined;
const producerFault = (): Promise<CliRun> =>
  (producerRun ??= runAgainst({ variant: () => ({ handlers: { 'create-address-type': onSuccess(serverError) } }), tokenVia: 'env' }));

describe.concurrent('a producer fault (create-address-type answers 500 to valid creates)', () => {
  test(
    "the producer fails; its dependants' cases about a record are skipped naming it, the others run and hold",
    async () => {
      const run = await producerFault();
      expect(run.code).toBe(1);
      await assertSound(run);
      const results = requireResults(run);
      const producer = operation(results, 'create-address-type');
      expect(producer.outcome).toBe('failed');
      expect(checkIds(producer, 'error')).toContain('not-a-server-error');
      for (const id of DEPENDANTS) {
        const cases = operation(results, id).cases.filter((c) => c.kind !== 'scenario');
        expect(cases.find((c) => c.kind === 'presence')?.outcome, id).toBe('passed');
        // The cases about a live record wait on the create, and are skipped naming it; the auth matrix and the
        // negative and coverage cases need no record: they run (with ids no record has) and hold.
        for (const c of cases.filter((x) => x.kind !== 'presence')) {
          if (c.kind === 'auth' || c.kind === 'negative' || c.kind === 'coverage') {
            expect(['passed', 'skipped'], `${id} › ${c.name}: ${c.skipReason ?? ''}`).toContain(c.outcome);
            continue;
          }
          expect(c.outcome, `${id} › ${c.name}`).toBe('skipped');
          expect(c.skipReason, `${id} › ${c.name}`).toMatch(/create-address-type answered 500/);
        }
        expect(cases.some((c) => c.kind === 'auth' && c.outcome === 'passed'), id).toBe(true);
      }
      expect(DESCRIBED.filter((id) => id !== 'create-address-type' && !DEPENDANTS.includes(id)).every((id) => outcomes(results)[id] === 'passed')).toBe(true);
    },
    RUN_TIMEOUT,
  );

  test(
    'only the producer is failing: the steps of a scenario after its failed create do not blame the next operations',
    async () => {
      const results = requireResults(await producerFault());
      expect(failing(results), summary(results).join('\n')).toEqual(['create-address-type']);
    },
    RUN_TIMEOUT,
  );
});

// ---------------------------------------------------------------------------------------------------------
// Variations the seed allows: exit 0, nothing failed or missing, no error finding

interface Allowed extends Target {
  code: 0 | 1;
  more: (results: RunResults) => void;
}

const validationToNoEnvelope = (body: unknown): Handler =>
  async (_req, next) => {
    const reply = await next();
    return replyCode(reply) === 'VALIDATION_ERROR' ? { status: 400, body } : reply;
  };

const unknownCode: Handler = async (_req, next) => {
  const reply = await next();
  if (replyCode(reply) !== 'VALIDATION_ERROR') return reply;
  const body = objectBody(reply) as { error: Record<string, unknown> };
  return { ...reply, body: { error: { ...body.error, code: 'ERR_NEW_99' } } };
};

const EXTRA_ROUTES = [
  { method: 'GET', path: '/customer-service/extra-status', reply: { status: 200, body: { ok: true } } },
  { method: 'POST', path: '/customer-service/address-types/{id}/archive', reply: { status: 200, body: {} } },
  { method: 'GET', path: '/openapi.json', reply: { status: 200, body: { openapi: '3.1.0' } } },
];

function unknownCodeWarnings(results: RunResults): void {
  const warnings = allFindings(results).filter((f) => f.check === 'error-envelope-conformance');
  expect(warnings.length).toBeGreaterThan(0);
  expect(warnings.every((f) => f.severity === 'warning' && f.actual === 'ERR_NEW_99')).toBe(true);
  expect(new Set(warnings.map((f) => f.operationId))).toContain('create-address-type');
}

const ALLOWED: Array<[string, Allowed]> = [
  [
    '400 without envelope ({"message":"bad"}), creates answering bare arrays, an extra property in every response',
    {
      variant: () => ({
        createShape: 'array',
        handlers: everyOperation(async (req, next) => {
          const reply = await validationToNoEnvelope({ message: 'bad' })(req, next);
          return { ...reply, body: withExtra(reply.body) };
        }),
      }),
      tokenVia: 'env',
      code: 0,
      more: (results) => {
        const bare400 = answered(results).filter((e) => e.response?.status === 400 && e.response.body.includes('"message":"bad"'));
        expect(bare400.length).toBeGreaterThan(10);
        expect(positiveJson(results, 'create-address-type')).toEqual([expect.objectContaining({ id: expect.stringMatching(UUID), conformanceExtra: 'allowed' })]);
        expect(positiveJson(results, 'create-address-type-field')).toEqual([expect.objectContaining({ id: expect.stringMatching(UUID) })]);
        expect(positiveJson(results, 'get-address-type-field-by-id')).toMatchObject({ id: expect.stringMatching(UUID), conformanceExtra: 'allowed' });
        expect(positiveJson(results, 'get-foreign-trade-reference-number')).toMatchObject({ conformanceExtra: 'allowed' });
      },
    },
  ],
  [
    '400 with an empty body, creates answering pages, a body on every update and delete, undocumented extra routes',
    {
      variant: () => ({
        createShape: 'page',
        extraRoutes: EXTRA_ROUTES,
        handlers: {
          ...everyOperation(validationToNoEnvelope('')),
          ...Object.fromEntries(
            (['update-address-type', 'update-address-type-field', 'delete-address-type', 'delete-address-type-field'] as const).map((id) => [
              id,
              (async (req, next) => {
                const reply = await validationToNoEnvelope('')(req, next);
                return reply.status === 200 ? { status: 200, body: { id: req.params['fieldId'] ?? req.params['id'], done: true } } : reply;
              }) satisfies Handler,
            ]),
          ),
        },
      }),
      tokenVia: 'flag',
      code: 0,
      probe: async ({ svc }) => {
        for (const route of [`${svc.customerBaseUrl}/extra-status`, `${svc.url}/openapi.json`]) {
          const res = await request(route);
          expect(res.statusCode, route).toBe(200);
          await res.body.dump();
        }
      },
      more: (results) => {
        expect(answered(results).some((e) => e.response?.status === 400 && e.response.body === '')).toBe(true);
        expect(positiveJson(results, 'create-address-type')).toEqual({ total: 1, data: [expect.objectContaining({ id: expect.stringMatching(UUID) })] });
        expect(positiveJson(results, 'create-user')).toMatchObject({ total: 1, data: [expect.objectContaining({ identityProviderUserId: expect.any(String) })] });
        expect(positiveJson(results, 'update-address-type')).toMatchObject({ done: true });
        expect(positiveJson(results, 'delete-address-type-field')).toMatchObject({ done: true });
        expect(results.operations.map((o) => o.path)).not.toContain('/extra-status');
      },
    },
  ],
  [
    'an unknown error code (ERR_NEW_99 for VALIDATION_ERROR) is a warning; creates answering records',
    {
      variant: () => ({ createShape: 'record', handlers: everyOperation(unknownCode) }),
      tokenVia: 'env',
      code: 0,
      more: (results) => {
        unknownCodeWarnings(results);
        expect(positiveJson(results, 'create-address-type')).toEqual(expect.objectContaining({ id: expect.stringMatching(UUID) }));
      },
    },
  ],
];

describe.concurrent('allowed variations: exit 0, nothing failed or missing, no error finding', () => {
  test.each(ALLOWED)(
    '%s',
    async (_name, allowed) => {
      const run = await runAgainst(allowed);
      const results = requireResults(run);
      await assertSound(run);
      expect(run.code, `${summary(results).join('\n')}\n${run.stderr}`).toBe(allowed.code);
      expect(results.verdict).toBe('conformant');
      expect(failing(results)).toEqual([]);
      expect(Object.values(outcomes(results)).every((o) => o === 'passed'), summary(results).join('\n')).toBe(true);
      expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
      allowed.more(results);
    },
    RUN_TIMEOUT,
  );

  test(
    '--fail-on warning turns the unknown code into a failure (exit 1)',
    async () => {
      const run = await runAgainst({ variant: () => ({ handlers: everyOperation(unknownCode) }), tokenVia: 'flag', args: ['--fail-on', 'warning'] });
      expect(run.code).toBe(1);
      const results = requireResults(run);
      await assertSound(run);
      expect(results.failOn).toBe('warning');
      expect(results.verdict).toBe('not-conformant');
      unknownCodeWarnings(results);
      expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
      const warned = [...new Set(allFindings(results).map((f) => f.operationId))].sort();
      expect(failing(results)).toEqual(warned);
      expect(failing(results)).toContain('create-address-type');
    },
    RUN_TIMEOUT,
  );
});

// A sanity check of the variants themselves, without the CLI: the faults are where the rows say they are.
describe('the variants used above', () => {
  test('a valid field update is told apart from an invalid one', () => {
    const req = (body: unknown, fieldId: string = randomUUID()): HandlerRequest => ({
      operationId: 'update-address-type-field',
      method: 'PUT',
      path: '/',
      params: { id: randomUUID(), fieldId },
      query: new URLSearchParams(),
      headers: {},
      body,
      rawBody: JSON.stringify(body),
    });
    const valid = { fieldKey: 'k', isActive: true, isMandatory: false, sequenceNumber: 3 };
    expect(isValidFieldUpdate(req(valid))).toBe(true);
    expect(isValidFieldUpdate(req({ ...valid, sequenceNumber: 2 ** 31 }))).toBe(false);
    expect(isValidFieldUpdate(req({ ...valid, isVisible: 'yes' }))).toBe(false);
    expect(isValidFieldUpdate(req(valid, 'not-a-uuid'))).toBe(false);
  });

  test('each deployment plants its faults on distinct operations, each fault touching its own operation only; all 24 are planted', () => {
    for (const [name, deployment] of DEPLOYMENTS) {
      const ops = deployment.faults.map(([, f]) => f.operation);
      expect(new Set(ops).size, name).toBe(ops.length);
      const touched = deployment.faults.flatMap(([, f]) => {
        const v = f.variant();
        return [...Object.keys(v.handlers ?? {}), ...(v.removeOperations ?? []), ...(v.skipAuth ?? [])];
      });
      expect(touched.sort(), name).toEqual([...ops].sort());
    }
    expect(DEPLOYMENTS.flatMap(([, d]) => d.faults).length).toBe(24);
  });

  test('extra properties reach nested objects and list items', () => {
    expect(withExtra({ error: { code: 'X' } })).toEqual({ error: { code: 'X', conformanceExtra: 'allowed' }, conformanceExtra: 'allowed' });
    expect(withExtra([{ a: 1 }, 'x'])).toEqual([{ a: 1, conformanceExtra: 'allowed' }, 'x']);
  });
});
