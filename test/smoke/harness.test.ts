import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';

test('package is ESM and pins Node >= 20.19', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  expect(pkg.type).toBe('module');
  expect(pkg.engines.node).toBe('>=20.19');
});
