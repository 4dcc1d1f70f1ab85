/**
 * Faults between operations, in authentication, in what responses leak and on the wire: each deployment starts the
 * reference service with faults on distinct operations (none setting a handler another sets), runs the CLI against
 * it and reads results.json. Each fault must be flagged on its operation by the check that names it, and exactly
 * the planted operations are blamed (exit 1); the correct variations pass (exit 0).
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, describe, expect, test } from 'vitest';
import { OPERATION_IDS, type Handler, type HandlerRequest, type Reply, type Variant } from '../../src/reference-service/index.ts';
import type { CheckId, RunResults } from '../../src/runner/model.ts';
import {
  allFindings,
  checkIds,
  DESCRIBED,
  failing,
  objectBody,
  operation,
  outcomes,
  pool,
  removeTemps,
  requireResults,
  resultsSchemaErrors,
  runCli,
  startVariant,
  summary,
  TOKEN,
  tokenLeaks,
  type CliRun,
  type DescribedOperation,
} from '../support/runs.ts';

const limit = pool(3);
const RUN_TIMEOUT = 300_000;
afterAll(removeTemps);

function runAgainst(variant: Variant): Promise<CliRun> {
  return limit(async () => {
    const started = await startVariant(variant);
    try {
      const { args, env } = started.target('flag');
      return await runCli([...args, '--quiet', '--keep-passed-exchanges'], { env });
    } finally {
      await started.close();
    }
  });
}

const onSuccess =
  (change: (reply: Reply, req: HandlerRequest) => Reply | Promise<Reply>): Handler =>
  async (req, next) => {
    const reply = await next();
    return reply.status === 200 ? change(reply, req) : reply;
  };

const notFound = (): Reply => ({ status: 400, body: { error: { code: 'ERR_PLAT_4', message: 'record not found' } } });
const unauthorized = (): Reply => ({ status: 401, headers: { 'www-authenticate': 'Bearer' }, body: { error: { code: 'UNAUTHORIZED' } } });

/** Checks the bearer token the way a faulty gateway might: `accept(given)` decides. */
function authBy(accept: (header: string) => boolean): Handler {
  return (req, next) => (accept(req.headers.authorization ?? '') ? next() : unauthorized());
}

interface Fault {
  variant: () => Variant;
  operation: DescribedOperation;
  check: CheckId;
  /** The operation's outcome; several when the fault makes more than one right (see the flaky row). */
  outcome?: 'failed' | 'missing' | 'flaky' | Array<'failed' | 'flaky'>;
  more?: (results: RunResults) => void;
}

const deleted = new Set<string>();
let calls = 0;

const DEPLOYMENTS: Array<[string, Array<[string, Fault]>]> = [
  [
    'a create whose id is never served beside a truncated token accepted, an error envelope on a success, a documented method answered 405, a never-issued reference validated and an unknown transactionId accepted',
    [
      [
        'the valid token truncated is accepted',
        {
          variant: () => ({ skipAuth: ['customer-get-cache-key-list'], handlers: { 'customer-get-cache-key-list': authBy((h) => /^Bearer .{8,}$/.test(h) && TOKEN.startsWith(h.slice(7))) } }),
          operation: 'customer-get-cache-key-list',
          check: 'auth-enforced',
          more: (results) => {
            const failed = operation(results, 'customer-get-cache-key-list').cases.filter((c) => c.outcome === 'failed').map((c) => c.name);
            expect(failed).toEqual(['auth: valid token truncated']);
          },
        },
      ],
      [
        'a create whose returned id is never served fails on the create',
        {
          variant: () => ({ handlers: { 'create-address-type-field': onSuccess((reply) => ({ ...reply, body: { ...objectBody(reply), id: randomUUID() } })) } }),
          operation: 'create-address-type-field',
          check: 'created-resource-readable',
        },
      ],
      [
        'a success status carrying the error envelope',
        {
          variant: () => ({ handlers: { 'create-address-type': onSuccess((reply) => ({ ...reply, body: { ...objectBody(reply), error: { code: 'ERROR' } } })) } }),
          operation: 'create-address-type',
          check: 'success-not-error-envelope',
        },
      ],
      [
        'a documented method answered 405 with the envelope is missing',
        {
          variant: () => ({ handlers: { 'update-address-type': () => ({ status: 405, body: { error: { code: 'METHOD_NOT_ALLOWED' } } }) } }),
          operation: 'update-address-type',
          check: 'operation-present',
          outcome: 'missing',
        },
      ],
      [
        'a reference number never issued, or an empty body, validates as valid',
        {
          variant: () => ({ handlers: { 'validate-reference-number': onSuccess((reply) => ({ ...reply, body: { IsValid: true } })) } }),
          operation: 'validate-reference-number',
          check: 'semantic-expectation',
          more: (results) => {
            const failed = operation(results, 'validate-reference-number').cases.filter((c) => c.outcome === 'failed').map((c) => c.name);
            expect(failed.sort()).toEqual(['semantic: empty body is not valid', 'semantic: unknown reference is not valid']);
          },
        },
      ],
      [
        'a verify with an unknown transactionId accepted',
        {
          variant: () => ({ handlers: { 'verify-forget-password-otp': (req, next) => ((req.body as { transactionId?: string })?.transactionId === '00000000-0000-4000-8000-000000000000' ? { status: 200, body: {} } : next()) } }),
          operation: 'verify-forget-password-otp',
          check: 'negative-data-rejected',
        },
      ],
    ],
  ],
  [
    'a create that stores another value beside a delete that leaves the record listed, a token echoed back and the one-time password in a response',
    [
      [
        "a response that echoes the caller's token",
        {
          variant: () => ({ handlers: { 'customer-get-cache-key-list': async (req, next) => ({ ...(await next()), headers: { 'x-seen-authorization': req.headers.authorization ?? '' } }) } }),
          operation: 'customer-get-cache-key-list',
          check: 'secret-not-exposed',
        },
      ],
      [
        'a create that stores another value than the one sent',
        {
          variant: () => ({
            handlers: {
              'create-address-type-field': (req, next) => {
                const body = req.body as Record<string, unknown> | undefined;
                if (body && typeof body['fieldKey'] === 'string') body['fieldKey'] = `${body['fieldKey']}-stored`;
                return next();
              },
            },
          }),
          operation: 'create-address-type-field',
          check: 'created-resource-readable',
        },
      ],
      [
        "a delete that leaves the record in its parent's list",
        {
          variant: () => ({
            handlers: {
              'delete-address-type-field': (req, next) => {
                const id = req.params['fieldId'] ?? '';
                if (!/^[0-9a-f-]{36}$/i.test(id) || deleted.has(id)) return next();
                deleted.add(id);
                return { status: 200, body: {} };
              },
              'get-address-type-field-by-id': (req, next) => (deleted.has(req.params['fieldId'] ?? '') ? notFound() : next()),
            },
          }),
          operation: 'delete-address-type-field',
          check: 'use-after-delete',
        },
      ],
      [
        'the one-time password in a response of the forgot-password flow (reported on the flow it breaks)',
        {
          variant: () => ({
            handlers: {
              'send-forget-password-otp': onSuccess(async (reply, req) => {
                const tx = String(objectBody(reply)['TransactionId']);
                const res = await request(`http://${req.headers.host}/__reference/otp/${tx}`, { headers: { authorization: req.headers.authorization ?? '' } });
                const { oneTimePassword } = (await res.body.json()) as { oneTimePassword: string };
                return { ...reply, body: { ...objectBody(reply), Debug: `otp=${oneTimePassword}` } };
              }),
            },
          }),
          operation: 'verify-forget-password-otp',
          check: 'secret-not-exposed',
        },
      ],
    ],
  ],
  [
    "a list holding another parent's children beside a get-by-id whose owner field names another parent and a byte-order mark",
    [
      [
        'a JSON body with a byte-order mark',
        {
          variant: () => ({ handlers: { 'customer-get-cache-key-list': onSuccess((reply) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: `\uFEFF${JSON.stringify(reply.body)}` })) } }),
          operation: 'customer-get-cache-key-list',
          check: 'json-wellformed',
        },
      ],
      [
        "a list under a parent holding another parent's children",
        {
          variant: () => {
            const created = new Map<string, Record<string, unknown>>();
            return {
              handlers: {
                'create-address-type-field': onSuccess((reply) => (created.set(String(objectBody(reply)['id']), objectBody(reply)), reply)),
                'get-address-type-field-list': onSuccess((reply) => ({ ...reply, body: [...created.values()].map((f) => ({ ...f, translations: [] })) })),
                'delete-address-type-field': onSuccess((reply, req) => (created.delete(req.params['fieldId'] ?? ''), reply)),
              },
            };
          },
          operation: 'get-address-type-field-list',
          check: 'ownership',
        },
      ],
      [
        'a get-by-id whose owner field does not name the parent',
        {
          variant: () => ({ handlers: { 'get-address-type-field-by-id': onSuccess((reply) => ({ ...reply, body: { ...objectBody(reply), typeId: randomUUID() } })) } }),
          operation: 'get-address-type-field-by-id',
          check: 'ownership',
        },
      ],
    ],
  ],
  [
    'a get-by-id answering a second JSON text beside a flaky GET and another scheme carrying the token',
    [
      [
        'identical calls that fail and pass are flaky, with the counts',
        {
          variant: () => (
            (calls = 0),
            {
            handlers: {
              'customer-get-cache-key-list': async (_req, next) => {
                // Every other authenticated call fails: any three identical calls in a row disagree.
                calls += 1;
                return calls % 2 === 0 ? { status: 500, body: { error: { code: 'ERROR' } } } : next();
              },
            },
          }),
          operation: 'customer-get-cache-key-list',
          check: 'not-a-server-error',
          // The single presence probe may draw one of the failing calls: then the operation is failed, not
          // flaky (both fail the run). The counter is shared by every concurrent case, so which calls fail depends on
          // their order: the positive case's three identical calls disagree in most runs (flaky, counted), and may
          // draw three passing ones; some case draws the failures either way.
          outcome: ['flaky', 'failed'],
          more: (results) => {
            const cases = operation(results, 'customer-get-cache-key-list').cases;
            const shown = JSON.stringify(cases.map((c) => [c.name, c.outcome]));
            const positive = cases.find((c) => c.name === 'positive');
            expect(positive?.exchanges, shown).toHaveLength(3);
            if (positive?.outcome === 'flaky') {
              expect(positive.flaky?.attempts).toBe(3);
              expect([1, 2]).toContain(positive.flaky?.failed);
            } else expect(['passed', 'failed'], shown).toContain(positive?.outcome);
            expect(cases.some((c) => (c.outcome === 'flaky' || c.outcome === 'failed') && c.findings.some((f) => f.check === 'not-a-server-error')), shown).toBe(true);
          },
        },
      ],
      [
        'a JSON body with a second JSON text after it',
        {
          variant: () => ({ handlers: { 'get-address-type-field-by-id': onSuccess((reply) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: `${JSON.stringify(reply.body)}{}` })) } }),
          operation: 'get-address-type-field-by-id',
          check: 'json-wellformed',
        },
      ],
      [
        'another scheme carrying the token (Basic) is accepted',
        {
          variant: () => ({ skipAuth: ['get-address-type-field-list'], handlers: { 'get-address-type-field-list': authBy((h) => h.split(' ')[1] === TOKEN) } }),
          operation: 'get-address-type-field-list',
          check: 'auth-enforced',
          more: (results) => {
            const failed = operation(results, 'get-address-type-field-list').cases.filter((c) => c.outcome === 'failed').map((c) => c.name);
            expect(failed).toEqual(['auth: Basic scheme']);
          },
        },
      ],
    ],
  ],
  [
    'a get-by-id that serves a child under any parent',
    [
      [
        'a get-by-id that serves a child under any parent',
        {
          variant: () => {
            const created = new Map<string, Record<string, unknown>>();
            return {
              handlers: {
                'create-address-type-field': onSuccess((reply) => (created.set(String(objectBody(reply)['id']), objectBody(reply)), reply)),
                'delete-address-type-field': onSuccess((reply, req) => (created.delete(req.params['fieldId'] ?? ''), reply)),
                'get-address-type-field-by-id': async (req, next) => {
                  const reply = await next();
                  const record = created.get(req.params['fieldId'] ?? '');
                  return reply.status !== 200 && record && /^[0-9a-f-]{36}$/i.test(req.params['id'] ?? '') ? { status: 200, body: record } : reply;
                },
              },
            };
          },
          operation: 'get-address-type-field-by-id',
          check: 'ownership',
        },
      ],
    ],
  ],
];

async function assertSound(run: CliRun): Promise<void> {
  expect(await tokenLeaks(run)).toEqual([]);
  expect(resultsSchemaErrors(requireResults(run))).toEqual([]);
}

/** One variant with every fault of a deployment planted (each fault's handlers sit on operations no other fault's do). */
function plant(faults: Fault[]): Variant {
  const variants = faults.map((f) => f.variant());
  return {
    handlers: Object.assign({}, ...variants.map((v) => v.handlers ?? {})) as Record<string, Handler>,
    skipAuth: variants.flatMap((v) => v.skipAuth ?? []),
  };
}

const plantedOperations = (faults: Fault[]): string[] => DESCRIBED.filter((id) => faults.some((f) => f.operation === id));

describe.concurrent.each(DEPLOYMENTS)('depth faults planted together (%s): exit 1, exactly the faulty operations are flagged, each by its check', (_name, rows) => {
  const faults = rows.map(([, f]) => f);
  let run: Promise<CliRun> | undefined;
  const planted = (): Promise<CliRun> => (run ??= runAgainst(plant(faults)));

  test(`exactly ${plantedOperations(faults).join(', ')} ${faults.length > 1 ? 'are' : 'is'} blamed`, async () => {
    const run = await planted();
    const results = requireResults(run);
    await assertSound(run);
    expect(run.code, `${summary(results).join('\n')}\n${run.stderr}`).toBe(1);
    // The engine's own cases blame only the faulty operations. (A hand-written scenario asserts what it
    // wrote itself, so a create whose id is never served also fails the scenario's later reads.)
    const blamed = DESCRIBED.filter((id) =>
      operation(results, id).cases.some((c) => c.kind !== 'scenario' && (c.outcome === 'failed' || c.outcome === 'missing' || c.outcome === 'flaky')),
    );
    expect(blamed, summary(results).join('\n')).toEqual(plantedOperations(faults));
  }, RUN_TIMEOUT);

  test.each(rows)(
    '%s',
    async (_name, fault) => {
      const results = requireResults(await planted());
      const op = operation(results, fault.operation);
      const allowed = Array.isArray(fault.outcome) ? fault.outcome : [fault.outcome ?? 'failed'];
      expect(allowed, JSON.stringify(op.cases.map((c) => [c.name, c.outcome, c.findings.map((f) => f.message)]))).toContain(op.outcome);
      expect(checkIds(op, 'error')).toContain(fault.check);
      fault.more?.(results);
    },
    RUN_TIMEOUT,
  );
});

// ---------------------------------------------------------------------------------------------------------
// Correct variations: 403 for bad credentials, 1-based paging, gzip on every answer, pretty-printed JSON with
// reordered keys, a documented 408 once (retried): exit 0, nothing flagged.

function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]));
}

function correctVariant(): Variant {
  let timedOut = false;
  const handler: Handler = async (req, next) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return { status: 403, body: { error: { code: 'FORBIDDEN' } } };
    if (req.operationId === 'get-address-type-field-list' && !timedOut) {
      timedOut = true;
      return { status: 408, body: { error: { code: 'ERR_PLAT_33' } } };
    }
    const index = req.query.get('pageIndex');
    if (index !== null && /^\d+$/.test(index) && Number(index) <= 2 ** 31 - 1) req.query.set('pageIndex', String(Math.max(0, Number(index) - 1)));
    const reply = await next();
    if (reply.body === undefined || typeof reply.body === 'string' || Buffer.isBuffer(reply.body)) return reply;
    const text = `${JSON.stringify(reordered(reply.body), null, 2)}\n`;
    return { status: reply.status, headers: { ...reply.headers, 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip' }, body: gzipSync(text) };
  };
  return { skipAuth: [...OPERATION_IDS], handlers: Object.fromEntries(OPERATION_IDS.map((id) => [id, handler])) };
}

test.concurrent(
  'correct variations pass: 403 for bad auth, 1-based paging, gzip always, pretty-printed reordered JSON, one documented 408',
  async () => {
    const run = await runAgainst(correctVariant());
    const results = requireResults(run);
    await assertSound(run);
    expect(run.code, `${summary(results).join('\n')}\n${run.stderr}`).toBe(0);
    expect(failing(results)).toEqual([]);
    expect(Object.values(outcomes(results)).every((o) => o === 'passed'), summary(results).join('\n')).toBe(true);
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
    const all = results.operations.flatMap((o) => o.cases.flatMap((c) => c.exchanges));
    expect(all.filter((e) => e.response?.headers['content-encoding'] === 'gzip').length).toBeGreaterThan(50);
    expect(all.some((e) => e.retries?.some((r) => r.reason.includes('408')))).toBe(true);
    const auth = results.operations.flatMap((o) => o.cases.filter((c) => c.kind === 'auth'));
    expect(auth.length).toBeGreaterThan(15 * 6);
    expect(auth.every((c) => c.outcome === 'passed' && c.exchanges.at(-1)?.response?.status === 403)).toBe(true);
  },
  RUN_TIMEOUT,
);

test('each deployment plants its faults on distinct operations whose handlers no other fault of it sets; all 17 are planted', () => {
  for (const [name, rows] of DEPLOYMENTS) {
    const ops = rows.map(([, f]) => f.operation);
    expect(new Set(ops).size, name).toBe(ops.length);
    const keys = rows.flatMap(([, f]) => Object.keys(f.variant().handlers ?? {}));
    expect(new Set(keys).size, name).toBe(keys.length);
  }
  expect(DEPLOYMENTS.flatMap(([, rows]) => rows).length).toBe(17);
});
