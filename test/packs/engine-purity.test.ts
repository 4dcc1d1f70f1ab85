/**
 * The engine knows no service: no path, operation id, error code, field name or service name of the Customer
 * or foreign-trade service in src/runner (its sources and the files it ships). They live in src/packs/customer.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../support/runs.ts';

const ENGINE = join(ROOT, 'src/runner');

/** Words of the Customer pack: service names, resource paths, operation ids, error codes, fields. */
const WORDS = [
  /customer/i,
  /foreign[-_ ]?trade/i,
  /address[-_ ]?types?/i,
  /reference[-_ ]?numbers?/i,
  /forget[-_ ]?password|forgot/i,
  /ERR_PLAT|ERR_BNPL|ERR_CORE|ERR_AUT|ERR_BPMCUS/,
  /oneTimePassword/,
  /LastReference/,
  /cache-key|caches\/keys/i,
  /\/__reference\//,
  /reference-service/,
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

test('no word of the Customer service in the engine', () => {
  const hits: string[] = [];
  const all = files(ENGINE);
  expect(all.length).toBeGreaterThan(100);
  for (const file of all) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      for (const word of WORDS) if (word.test(line)) hits.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
  }
  expect(hits).toEqual([]);
});

test('the words list finds the pack (the test can fail)', () => {
  const pack = files(join(ROOT, 'src/packs/customer')).map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const word of [WORDS[0]!, WORDS[1]!, WORDS[2]!, WORDS[5]!, WORDS[6]!]) expect(pack).toMatch(word);
});
