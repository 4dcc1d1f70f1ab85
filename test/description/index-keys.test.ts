import { describe, expect, it } from 'vitest';
import { compactIndexKeys } from '../../src/runner/description/index-keys.ts';

describe('compactIndexKeys', () => {
  it('keeps every key, value and key order of number-keyed objects, shared and cyclic ones included', () => {
    const shared = { description: 'shared' };
    const responses: Record<string, unknown> = { '200': shared, '400': { description: 'bad' }, '502': shared, default: { description: 'other' } };
    const op: Record<string, unknown> = { operationId: 'x', responses };
    op['self'] = op;
    const doc = { paths: { '/a': { get: op } }, list: [responses, { '0': 'a', '1': 'b' }] };
    const before = JSON.stringify(doc, (k, v) => (k === 'self' ? undefined : v));
    compactIndexKeys(doc);
    expect(JSON.stringify(doc, (k, v) => (k === 'self' ? undefined : v))).toBe(before);
    expect(Object.keys(responses)).toEqual(['200', '400', '502', 'default']);
    expect(responses['200']).toBe(shared);
    expect(responses['502']).toBe(shared);
    expect(op['self']).toBe(op);
    expect(Object.hasOwn(responses, '4294967294')).toBe(false);
  });

  it('leaves frozen objects and plain values alone', () => {
    const frozen = Object.freeze({ '200': 'ok', '500': 'error' });
    expect(() => compactIndexKeys({ frozen, n: 1, s: 'text', nothing: null })).not.toThrow();
    expect(Object.keys(frozen)).toEqual(['200', '500']);
    expect(() => compactIndexKeys(null)).not.toThrow();
  });
});
