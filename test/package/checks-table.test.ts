/**
 * The README's checks table is the registry's: one row per registered check, none for a check that does not exist,
 * and each row's WFC column is the code the fault-code table gives that check's errors (what results.json and
 * JUnit carry).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CHECKS } from '../../src/runner/checks/registry.ts';
import { FAULT_CODES, faultCodeOf } from '../../src/runner/checks/fault-codes.ts';

function tableRows(): Map<string, string> {
  const lines = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n');
  const start = lines.indexOf('| check | WFC | what it asserts |');
  expect(start, 'the checks table').toBeGreaterThan(0);
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    const m = /^\| `([a-z0-9-]+)` \| ([^|]+) \|/.exec(line);
    if (!m) break;
    rows.set(m[1]!, m[2]!.trim());
  }
  return rows;
}

describe('the README checks table', () => {
  test('lists every registered check once, and nothing else', () => {
    expect([...tableRows().keys()].sort()).toEqual([...CHECKS.keys()].sort());
  });

  test('gives each check the WFC code of the fault-code table', () => {
    for (const [id, wfc] of tableRows()) {
      const row = FAULT_CODES[id as keyof typeof FAULT_CODES];
      const expected = row === undefined ? '—' : row.writes !== undefined ? `${row.code} (${row.writes} on a write)` : String(row.code);
      expect(wfc, id).toBe(expected);
    }
  });

  test('the table maps only registered checks, and only errors carry a code', () => {
    for (const id of Object.keys(FAULT_CODES)) expect(CHECKS.has(id as never), id).toBe(true);
    expect(faultCodeOf({ check: 'not-a-server-error', severity: 'warning', method: 'GET' })).toBeUndefined();
    expect(faultCodeOf({ check: 'positive-data-accepted', severity: 'error', method: 'GET' })).toBeUndefined();
    expect(faultCodeOf({ check: 'auth-enforced', severity: 'error', method: 'GET' })).toBe(207);
    expect(faultCodeOf({ check: 'auth-enforced', severity: 'error', method: 'DELETE' })).toBe(208);
  });
});
