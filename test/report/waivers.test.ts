import { describe, expect, test } from 'vitest';
import { fileURLToPath } from 'node:url';
import {
  applyWaivers,
  loadWaivers,
  parseWaivers,
  unusedWaivers,
  WaiverFileError,
  type Waiver,
} from '../../src/runner/report/waivers.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { rawRun, TODAY } from './fixtures/run-results.ts';

const FILE = 'contract/waivers.yaml';
const repoFile = (p: string): string => fileURLToPath(new URL(`../../${p}`, import.meta.url));

const GOOD = `# one waiver
- operationId: update-address-type-field
  check: status-code-conformance
  reason: "CUS-1234: 204 on update"
  expires: 2099-12-31
`;

describe('loading the waiver file', () => {
  test('the committed contract/waivers.yaml is a valid, empty list', async () => {
    await expect(loadWaivers(repoFile('contract/waivers.yaml'))).resolves.toEqual([]);
  });

  test('a valid entry loads, with an unquoted date kept as text', async () => {
    await expect(parseWaivers(GOOD, FILE)).resolves.toEqual([
      { operationId: 'update-address-type-field', check: 'status-code-conformance', reason: 'CUS-1234: 204 on update', expires: '2099-12-31' },
    ]);
  });

  test('an empty file means no waivers', async () => {
    await expect(parseWaivers('# nothing yet\n', FILE)).resolves.toEqual([]);
  });

  const mistakes: Array<[string, { text: string; message: string }]> = [
    [
      'a typo in a key',
      {
        text: GOOD.replace('operationId:', 'operationID:'),
        message: 'contract/waivers.yaml:2: waiver 1: unknown key "operationID" (did you mean "operationId"? allowed keys: operationId, check, reason, expires)',
      },
    ],
    [
      'a missing key',
      {
        text: GOOD.replace(/ {2}reason:.*\n/, ''),
        message: 'contract/waivers.yaml:2: waiver 1: missing key "reason" (each waiver needs operationId, check, reason, expires)',
      },
    ],
    [
      'a date in another format',
      { text: GOOD.replace('2099-12-31', '31.12.2099'), message: 'contract/waivers.yaml:5: waiver 1: "expires" must be a date YYYY-MM-DD' },
    ],
    [
      'a date that does not exist',
      { text: GOOD.replace('2099-12-31', '2099-02-30'), message: 'contract/waivers.yaml:5: waiver 1: "expires" must be a date YYYY-MM-DD' },
    ],
    [
      'a check id that is not kebab-case',
      {
        text: GOOD.replace('status-code-conformance', 'Status Code'),
        message: 'contract/waivers.yaml:3: waiver 1: "check" must be a check id in kebab-case, e.g. response-schema-conformance',
      },
    ],
    [
      'an unknown key unlike any allowed one',
      {
        text: GOOD.replace('  expires:', '  ticket: CUS-1\n  expires:'),
        message: 'contract/waivers.yaml:5: waiver 1: unknown key "ticket" (allowed keys: operationId, check, reason, expires)',
      },
    ],
    ['a map instead of a list', { text: 'waivers: []\n', message: 'contract/waivers.yaml:1: must be a list of waivers (use [] for none)' }],
    ['broken YAML', { text: '- operationId: [unclosed\n', message: 'contract/waivers.yaml:2: not valid YAML' }],
    [
      'the same operation and check twice',
      { text: GOOD + GOOD.replace('# one waiver\n', ''), message: 'contract/waivers.yaml:6: waiver 2 repeats waiver 1 (update-address-type-field / status-code-conformance); keep one entry' },
    ],
  ];
  test.each(mistakes)('%s is a one-line error naming the file, line and key', async (_name, { text, message }) => {
    const error = await parseWaivers(text, FILE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaiverFileError);
    expect((error as Error).message).not.toContain('\n');
    expect((error as Error).message.startsWith(message)).toBe(true);
  });

  test('with the registered check ids, an unknown check is named with the known ones', async () => {
    const error = await parseWaivers(GOOD.replace('status-code-conformance', 'status-code-conformence'), FILE, {
      knownChecks: ['status-code-conformance', 'response-schema-conformance'],
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'contract/waivers.yaml:3: waiver 1: unknown check "status-code-conformence" (known checks: response-schema-conformance, status-code-conformance)',
    );
  });

  test('a missing file says so', async () => {
    await expect(loadWaivers('/nonexistent/waivers.yaml')).rejects.toThrow('/nonexistent/waivers.yaml: file not found');
  });
});

/** The fixture run without pact interactions (one of them fails), keeping only the operations selected. */
function cleanRun(keep: (operationId: string, outcome: string) => boolean) {
  const { pact: _pact, ...raw } = rawRun(rawRun().operations.filter((o) => keep(o.operationId, o.outcome)));
  return summarise(raw);
}

describe('applyWaivers', () => {
  const run = () => summarise(rawRun());
  const waiver = (w: Partial<Waiver>): Waiver => ({
    operationId: 'update-address-type-field',
    check: 'status-code-conformance',
    reason: 'CUS-1234',
    expires: '2099-12-31',
    ...w,
  });
  const op = (r: ReturnType<typeof run>, id: string) => r.operations.find((o) => o.operationId === id)!;

  test('a matching waiver marks the finding and check waived, and the case and operation pass', () => {
    const before = run();
    expect(op(before, 'update-address-type-field').outcome).toBe('failed');
    const after = applyWaivers(before, [waiver({})], TODAY);
    const updated = op(after, 'update-address-type-field');
    expect(updated.outcome).toBe('passed');
    expect(updated.cases[0]?.outcome).toBe('passed');
    expect(updated.cases[0]?.checks).toEqual([{ id: 'status-code-conformance', status: 'waived' }]);
    expect(updated.cases[0]?.findings[0]?.waived).toEqual({ reason: 'CUS-1234', expires: '2099-12-31' });
    expect(after.counts.failed).toBe(before.counts.failed - 1);
    expect(after.counts.passed).toBe(before.counts.passed + 1);
    expect(after.expiredWaivers).toEqual([]);
    expect(before.operations).toEqual(run().operations); // the input is untouched
  });

  test('a waiver applies through its expiry day', () => {
    const after = applyWaivers(run(), [waiver({ expires: TODAY })], TODAY);
    expect(op(after, 'update-address-type-field').outcome).toBe('passed');
    expect(after.expiredWaivers).toEqual([]);
  });

  test('an expired waiver waives nothing, is listed and fails the run', () => {
    const passing = cleanRun((id, outcome) => outcome === 'passed' || id === 'update-address-type-field');
    expect(applyWaivers(passing, [waiver({})], TODAY).verdict).toBe('conformant');
    const after = applyWaivers(passing, [waiver({ expires: '2025-05-31' })], TODAY);
    expect(op(after, 'update-address-type-field').outcome).toBe('failed');
    expect(op(after, 'update-address-type-field').cases[0]?.findings[0]?.waived).toBeUndefined();
    expect(after.expiredWaivers).toEqual([
      { operationId: 'update-address-type-field', check: 'status-code-conformance', reason: 'CUS-1234', expires: '2025-05-31' },
    ]);
    expect(after.verdict).toBe('not-conformant');
  });

  test('an expired waiver that matches nothing still fails an otherwise conformant run', () => {
    const clean = cleanRun((_id, outcome) => outcome === 'passed');
    expect(clean.verdict).toBe('conformant');
    const after = applyWaivers(clean, [waiver({ operationId: 'no-such-operation', expires: '2020-01-01' })], TODAY);
    expect(after.verdict).toBe('not-conformant');
    expect(after.expiredWaivers.map((w) => w.operationId)).toEqual(['no-such-operation']);
  });

  test('a waiver for another check or operation changes nothing', () => {
    const before = run();
    const after = applyWaivers(before, [waiver({ check: 'response-schema-conformance' }), waiver({ operationId: 'create-address-type' })], TODAY);
    expect(after).toEqual(before);
  });

  test('a waived warning no longer fails a failOn-warning run', () => {
    const strict = summarise({ ...cleanRun((id, outcome) => outcome === 'passed' || id === 'get-address-type-field-list'), failOn: 'warning' });
    const noSchemaError = applyWaivers(strict, [waiver({ operationId: 'get-address-type-field-list', check: 'response-schema-conformance' })], TODAY);
    expect(noSchemaError.verdict).toBe('not-conformant'); // the auth warning still counts
    const both = applyWaivers(noSchemaError, [waiver({ operationId: 'get-address-type-field-list', check: 'auth-enforced' })], TODAY);
    expect(both.verdict).toBe('conformant');
    expect(op(both, 'get-address-type-field-list').cases.map((k) => k.checks.map((x) => x.status))).toEqual([
      ['passed', 'waived'],
      ['waived'],
    ]);
  });

  test('today must be a date', () => {
    expect(() => applyWaivers(run(), [], '1 June 2025')).toThrow(/YYYY-MM-DD/);
  });

  test('unusedWaivers lists active waivers that matched nothing', () => {
    const used = waiver({});
    const unused = waiver({ operationId: 'create-address-type' });
    const expired = waiver({ operationId: 'x', expires: '2020-01-01' });
    expect(unusedWaivers(run(), [used, unused, expired], TODAY)).toEqual([unused]);
  });
});
