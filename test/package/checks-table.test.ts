/**
 * The checks table of docs/checks.md is the registry's: one row per registered check, none for a check that does not
 * exist, each row's kind the check's scope, and each row's WFC column the code the fault-code table gives that check's
 * errors (what results.json and JUnit carry). scripts/docs-tables.mjs writes it; test/package/docs-tables.test.ts
 * holds it to what the script makes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CHECKS } from '../../src/runner/checks/registry.ts';
import { CHECK_DOCS } from '../../src/runner/checks/descriptions.ts';
import { FAULT_CODES, faultCodeOf } from '../../src/runner/checks/fault-codes.ts';

function tableRows(): Map<string, { kind: string; wfc: string }> {
  const lines = readFileSync(new URL('../../docs/checks.md', import.meta.url), 'utf8').split('\n');
  const start = lines.indexOf('| check | kind | WFC | what it asserts |');
  expect(start, 'the checks table').toBeGreaterThan(0);
  const rows = new Map<string, { kind: string; wfc: string }>();
  for (const line of lines.slice(start + 2)) {
    const m = /^\| `([a-z0-9-]+)` \| ([a-z]+) \| ([^|]+) \|/.exec(line);
    if (!m) break;
    rows.set(m[1]!, { kind: m[2]!, wfc: m[3]!.trim() });
  }
  return rows;
}

describe('the checks table of docs/checks.md', () => {
  test('lists every registered check once, and nothing else', () => {
    expect([...tableRows().keys()].sort()).toEqual([...CHECKS.keys()].sort());
  });

  test('gives each check its kind and the WFC code of the fault-code table', () => {
    for (const [id, { kind, wfc }] of tableRows()) {
      expect(kind, id).toBe(CHECKS.get(id as never)!.scope);
      const row = FAULT_CODES[id as keyof typeof FAULT_CODES];
      const expected = row === undefined ? '—' : row.writes !== undefined ? `${row.code} (${row.writes} on a write)` : String(row.code);
      expect(wfc, id).toBe(expected);
    }
  });

  test('every registered check has a description, and every description a check', () => {
    expect(Object.keys(CHECK_DOCS).sort()).toEqual([...CHECKS.keys()].sort());
    for (const [id, text] of Object.entries(CHECK_DOCS)) expect(text.trim().length, id).toBeGreaterThan(0);
  });

  test('the table maps only registered checks, and only errors carry a code', () => {
    for (const id of Object.keys(FAULT_CODES)) expect(CHECKS.has(id as never), id).toBe(true);
    expect(faultCodeOf({ check: 'not-a-server-error', severity: 'warning', method: 'GET' })).toBeUndefined();
    expect(faultCodeOf({ check: 'positive-data-accepted', severity: 'error', method: 'GET' })).toBeUndefined();
    expect(faultCodeOf({ check: 'auth-enforced', severity: 'error', method: 'GET' })).toBe(207);
    expect(faultCodeOf({ check: 'auth-enforced', severity: 'error', method: 'DELETE' })).toBe(208);
  });
});
