/**
 * What the real-application tests require of their runs (test/support/real-app-runs.ts), on lists of findings
 * made up here: a true defect some seed must report fails the test when no run reports it, and passes when one does.
 */
import { describe, expect, test } from 'vitest';
import { reportedByNoRun } from '../support/real-app-runs.ts';

describe('the true defects some seed must report', () => {
  const required = ['list negative-data-rejected', 'update not-a-server-error'];

  test('reported by one run of four: required and held', () => {
    const runs = [['list negative-data-rejected'], [], ['update not-a-server-error', 'list negative-data-rejected'], []];
    expect(reportedByNoRun(runs, required)).toEqual([]);
  });

  test('lost from every run: named as missing', () => {
    const runs = [['list negative-data-rejected'], [], ['list negative-data-rejected'], ['read response-schema-conformance']];
    expect(reportedByNoRun(runs, required)).toEqual(['update not-a-server-error']);
  });

  test('no runs at all: every one is missing', () => {
    expect(reportedByNoRun([], required)).toEqual(required);
  });
});
