/**
 * Agreement with oasdiff on contract version pairs nobody here wrote: ../shared/drift-corpus holds 122 pairs from
 * oasdiff's own test data, each labelled with oasdiff's changes (ERR, WARN, INFO) and verdict. Per pair: do both
 * call it breaking; per ERR change: is a breaking change reported on the same operation; and no breaking claim on a
 * pair oasdiff calls non-breaking unless the corpus disputes oasdiff's label there. The thresholds are the measured
 * figures; each disagreement is one of those explained below.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compareDescriptions, loadForComparison } from '../../src/runner/compat/compare.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CORPUS = [process.env['CONFORMANCE_SHARED'], join(ROOT, '../shared'), join(ROOT, '../../shared')]
  .filter((p): p is string => Boolean(p))
  .map((p) => join(p, 'drift-corpus'))
  .find((p) => existsSync(join(p, 'pairs')));

interface Expected {
  breaking: boolean;
  disputed?: boolean;
  changes: Array<{ id: string; level: 'ERR' | 'WARN' | 'INFO'; operation?: string | null }>;
}

/** Disagreements, each explained (the note of the change says which side is taken and why). */
const EXPLAINED: Record<string, string> = {
  // The base's enum moved into a oneOf whose string branch has no enum: every string is accepted now, so the
  // removed enum values are still accepted (a widening). oasdiff compares the enum keyword alone.
  '030-request-property-enum-value-removed': 'ours: not breaking',
  // The added allOf member adds one optional property: elsewhere (new-optional-request-property) oasdiff rates
  // that INFO; merged by meaning, the composition says the same.
  '109-request-body-all-of-added': 'ours: not breaking',
  // Disputed labels: a security requirement or scope added locks out the clients that call without it.
  '075-api-security-added': 'ours: breaking (disputed)',
  '076-api-global-security-added': 'ours: breaking (disputed)',
  '077-api-security-scope-added': 'ours: breaking (disputed)',
};
/** Pairs the loader refuses: invalid OpenAPI that oasdiff reads anyway (`required: []` in 3.0; a key a response may not have). */
const UNREADABLE = new Set(['014-response-property-became-optional', '032-request-body-became-enum']);

describe.skipIf(!CORPUS)('agreement with oasdiff on the drift corpus', () => {
  test('verdicts, recall of ERR changes by operation, no breaking claim on an undisputed non-breaking pair', { timeout: 240_000 }, async () => {
    const pairs = readdirSync(join(CORPUS!, 'pairs')).sort();
    expect(pairs.length).toBe(122);
    let loaded = 0;
    let agree = 0;
    let errs = 0;
    let recalled = 0;
    let sameRule = 0;
    const disagreements: string[] = [];
    const falseBreaking: string[] = [];
    for (const pair of pairs) {
      const dir = join(CORPUS!, 'pairs', pair);
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected;
      let changes;
      try {
        changes = compareDescriptions(await loadForComparison(join(dir, 'base.yaml')), await loadForComparison(join(dir, 'revision.yaml')));
      } catch (error) {
        expect(UNREADABLE.has(pair), `${pair}: ${(error as Error).message}`).toBe(true);
        continue;
      }
      loaded++;
      const breaking = changes.filter((c) => c.level === 'breaking');
      if ((breaking.length > 0) === expected.breaking) agree++;
      else disagreements.push(pair);
      if (!expected.breaking && breaking.length > 0 && !expected.disputed) falseBreaking.push(pair);
      for (const c of expected.changes.filter((x) => x.level === 'ERR')) {
        errs++;
        const op = c.operation?.toLowerCase();
        if (breaking.some((b) => !op || b.operation?.toLowerCase() === op)) recalled++;
        if (changes.some((b) => b.rule === c.id && (!op || b.operation?.toLowerCase() === op))) sameRule++;
      }
    }
    expect(loaded).toBe(120);
    expect(disagreements.filter((p) => !EXPLAINED[p])).toEqual([]);
    expect(agree).toBeGreaterThanOrEqual(115);
    // 117 ERR changes on the pairs read; the 3 missed are those of pairs 030 and 109 above.
    expect(errs).toBe(117);
    expect(recalled).toBeGreaterThanOrEqual(114);
    expect(falseBreaking).toEqual([]);
    // The same rule id as oasdiff on the same operation (the rest: the two pairs above, and a change read by meaning
    // under another id: a scalar query parameter made an array with an items pattern, a oneOf that is not a wrap).
    expect(sameRule).toBeGreaterThanOrEqual(111);
  });
});
