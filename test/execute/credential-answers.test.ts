/**
 * Whether the deployment refused the run's own credential of a security scheme (execute/diagnose.ts): decided over
 * every call that carried it, so the order the answers came in changes nothing; answers that say nothing of a
 * credential count neither way; the cases of the operations that need a refused one are untested with why, the
 * auth matrix's and another identity's cases as they were.
 */
import { describe, expect, test } from 'vitest';
import { CredentialAnswers, refusedCredentialMessage, refusedCredentialReason, refusesCredential, untestedForRefusedCredentials, type RefusedCredential } from '../../src/runner/execute/diagnose.ts';
import type { CaseResult, Operation } from '../../src/runner/model.ts';

const op = (operationId: string, group: string, documented: string[] = ['200', '401'], scheme = 'api_key'): Operation => ({
  operationId,
  method: 'GET',
  path: group,
  group,
  service: 'svc',
  specFile: 'x.json',
  pointer: `/paths/${group}/get`,
  parameters: [],
  responses: documented.map((status) => ({ status, contentTypes: [], pointer: '' })),
  auth: [{ name: scheme, kind: 'apiKey', in: 'header', parameter: 'X-API-Key' }],
  secured: true,
  extensions: {},
});

const OPS = [op('listPets', '/pets'), op('listOwners', '/owners'), op('getStats', '/stats', ['200', '403'], 'basic_auth')];
const byId = (id: string) => OPS.find((o) => o.operationId === id);

function decide(answers: Array<[string, number | undefined]>): RefusedCredential[] {
  const tally = new CredentialAnswers();
  for (const [id, status] of answers) tally.note(byId(id)!, byId(id)!.auth!.map((s) => s.name), status);
  return tally.refused(byId, () => 'auth', false);
}

describe('CredentialAnswers', () => {
  test.each<[string, Array<[string, number | undefined]>, string[]]>([
    ['every call refused', [['listPets', 401], ['listOwners', 401]], ['api_key listOwners 401']],
    ['one operation lets it through', [['listPets', 200], ['listOwners', 401]], []],
    ['a record-level answer lets it through', [['listPets', 404], ['listOwners', 401]], []],
    ['input refused, a rate limit, a server error and no answer say nothing', [['listPets', 400], ['listPets', 422], ['listPets', 429], ['listPets', 503], ['listPets', undefined], ['listOwners', 401]], ['api_key listOwners 401']],
    ['only answers that say nothing: not refused', [['listPets', 400]], []],
    ['a 403 where the operation documents 403 and no 401 refuses', [['getStats', 403]], ['basic_auth getStats 403']],
    ['a 403 where it documents 401 says nothing', [['listPets', 403]], []],
  ])('%s', (_name, answers, expected) => {
    const show = (r: RefusedCredential) => `${r.scheme} ${r.operationId} ${r.status}`;
    expect(decide(answers).map(show)).toEqual(expected);
    // The same answers in any order: the same decision, naming the same operation.
    expect(decide([...answers].reverse()).map(show)).toEqual(expected);
  });

  test('refusesCredential: 401 always; 403 only where the contract answers a bad credential with it', () => {
    expect(refusesCredential(op('a', '/a'), 401)).toBe(true);
    expect(refusesCredential(op('a', '/a', ['200', '401', '403']), 403)).toBe(false);
    expect(refusesCredential(op('a', '/a', ['200', '403']), 403)).toBe(true);
    expect(refusesCredential(op('a', '/a', ['200']), 403)).toBe(false);
  });
});

test('the line names the scheme and where its credential comes from, never its value', () => {
  expect(refusedCredentialMessage({ scheme: 'api_key', operationId: 'listPets', status: 401, source: 'auth' })).toBe(
    'the credential for security scheme "api_key" was refused by listPets (401) and by every other call that carried it: check what --auth api_key=<value> gives (CONFORMANCE_AUTH, or auth in the config file)',
  );
  expect(refusedCredentialMessage({ scheme: 'bearer', operationId: 'createPet', status: 401, source: 'token', tokenCommand: true })).toBe(
    'the credential for security scheme "bearer" was refused by createPet (401) and by every other call that carried it: check the token (CONFORMANCE_TOKEN or --token, or what --token-command prints), or give the scheme its own with --auth bearer=<value>',
  );
  expect(refusedCredentialReason({ scheme: 'bearer', source: 'token' })).toBe(
    'the run\'s credential for security scheme "bearer" was refused on every call that carried it: check the token (CONFORMANCE_TOKEN or --token)',
  );
});

describe('untestedForRefusedCredentials', () => {
  const result = (name: string, kind: CaseResult['kind'], more: Partial<CaseResult> = {}): CaseResult => ({
    name,
    kind,
    outcome: 'failed',
    durationMs: 1,
    checks: [{ id: 'positive-data-accepted', status: 'failed' }],
    findings: [{ check: 'positive-data-accepted', severity: 'error', operationId: 'listPets', method: 'GET', path: '/pets', message: 'A valid request was rejected with 401.' }],
    exchanges: [],
    ...more,
  });

  test('the cases that sent the run’s credential are untested with why; the auth matrix, access, errored and planned skips stay', () => {
    const cases = new Map<string, CaseResult[]>([
      [
        'listPets',
        [
          result('presence', 'presence', { outcome: 'passed', findings: [], checks: [] }),
          result('positive', 'positive'),
          result('auth: no token', 'auth', { outcome: 'passed', findings: [], checks: [] }),
          result('access: as bob', 'positive', { outcome: 'skipped', skipKind: 'setup-failed', skipReason: 'x', access: { kind: 'function', identity: 'bob', status: 401 } }),
          result('coverage', 'coverage', { outcome: 'errored', errorMessage: 'socket hang up' }),
          result('lifecycle', 'lifecycle', { outcome: 'skipped', skipKind: 'read-only', skipReason: 'not a safe method (--read-only)' }),
          result('lifecycle: update', 'lifecycle', { outcome: 'skipped', skipKind: 'setup-failed', skipReason: 'setup: createPet answered 401 without a record id' }),
        ],
      ],
      ['getStats', [result('positive', 'positive')]],
    ]);
    const out = untestedForRefusedCredentials(cases, OPS, [{ scheme: 'api_key', operationId: 'listOwners', status: 401, source: 'auth' }]);
    const reason = 'the run\'s credential for security scheme "api_key" was refused on every call that carried it: check --auth api_key=<value>';
    expect(out.get('listPets')!.map((c) => `${c.name}: ${c.outcome}${c.skipKind ? ` ${c.skipKind}` : ''} ${c.findings.length}`)).toEqual([
      'presence: skipped credential-refused 0',
      'positive: skipped credential-refused 0',
      'auth: no token: passed 0',
      'access: as bob: skipped setup-failed 1',
      'coverage: errored 1',
      'lifecycle: skipped read-only 1',
      'lifecycle: update: skipped credential-refused 0',
    ]);
    expect(out.get('listPets')![1]!.skipReason).toBe(reason);
    // Another scheme's operation is judged as it was; the input is left as it was.
    expect(out.get('getStats')).toEqual(cases.get('getStats'));
    expect(cases.get('listPets')![1]!.outcome).toBe('failed');
  });
});
