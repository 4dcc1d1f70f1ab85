/**
 * The reports are written piece by piece (one operation at a time), and the pieces make exactly the
 * documents rendered whole: the streaming is invisible in the files.
 */
import { storedResults } from '../../src/runner/report/results-format.ts';
import { describe, expect, test } from 'vitest';
import { renderHtml, renderHtmlTo } from '../../src/runner/report/html.ts';
import { renderJunit, renderJunitTo } from '../../src/runner/report/junit.ts';
import { serialiseResults, serialiseResultsTo } from '../../src/runner/report/write.ts';
import type { RunResults } from '../../src/runner/model.ts';
import { fixtureRun } from './fixtures/run-results.ts';

function pieces(render: (write: (chunk: string) => void) => void): string[] {
  const chunks: string[] = [];
  render((chunk) => void chunks.push(chunk));
  return chunks;
}

const runs: Array<[string, () => RunResults]> = [
  ['the fixture run', fixtureRun],
  ['a run without operations', () => ({ ...fixtureRun(), operations: [] })],
];

describe.each(runs)('%s', (_name, run) => {
  test('results.json in pieces is the compact JSON of the whole stored results, one operation per line', () => {
    const chunks = pieces((write) => serialiseResultsTo(run(), write));
    expect(JSON.parse(chunks.join(''))).toEqual(storedResults(run()));
    expect(chunks.join('').split('\n')).toHaveLength(run().operations.length > 0 ? run().operations.length + 3 : 2);
    expect(chunks.join('')).toBe(serialiseResults(run()));
    if (run().operations.length > 0) expect(chunks.length).toBeGreaterThan(run().operations.length);
  });

  test('junit.xml in pieces is the document rendered whole', () => {
    const chunks = pieces((write) => renderJunitTo(run(), write));
    expect(chunks.join('')).toBe(renderJunit(run()));
    expect(chunks.length).toBeGreaterThan(1);
  });

  test('index.html in pieces is the page rendered whole, one piece per operation row', () => {
    const chunks = pieces((write) => renderHtmlTo(run(), write));
    expect(chunks.join('')).toBe(renderHtml(run()));
    expect(chunks.length).toBe(2 * run().operations.length + 1);
    expect(chunks.join('')).not.toContain('<!--conformance-operation-->');
  });
});
