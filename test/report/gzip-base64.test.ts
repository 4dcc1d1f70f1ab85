import { describe, expect, test } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { Base64Gzip } from '../../src/runner/report/gzip-base64.ts';

describe('Base64Gzip', () => {
  test.each([
    ['empty', [] as string[]],
    ['one piece', ['[{"a":1}]']],
    ['many batches, multi-byte text', Array.from({ length: 4000 }, (_, i) => `{"i":${i},"t":"é ✓ ${'x'.repeat(i % 97)}"},`)],
  ])('%s: the pieces join into base64 of one gzip stream of the text', (_name, pieces) => {
    const out: string[] = [];
    const gzip = new Base64Gzip((t) => out.push(t), 1 << 14);
    for (const p of pieces) gzip.write(p);
    gzip.end();
    const text = out.join('');
    expect(text).toMatch(/^[A-Za-z0-9+/]*=*$/);
    expect(gunzipSync(Buffer.from(text, 'base64')).toString('utf8')).toBe(pieces.join(''));
    if (pieces.length > 1000) expect(out.length).toBeGreaterThan(3);
  });
});
