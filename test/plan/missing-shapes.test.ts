/**
 * The shapes that break parsers and binders rather than validators, as classes of the one tier table: a body
 * nested 5,000 levels deep (deep-nesting), the body's own values as an array (values-as-array), a scalar's value as
 * an array of one (one-element-array), and the negative cases of every declared request media type beyond the
 * first (a required field left out, a wrong kind; a form's as text).
 */
import { describe, expect, test } from 'vitest';
import type { Profile } from '../../src/runner/description/profile.ts';
import type { JsonSchema, Operation, RequestBodySpec } from '../../src/runner/model.ts';
import { DEEP_LEVELS } from '../../src/runner/plan/body-shapes.ts';
import { planOperation } from '../../src/runner/plan/cases.ts';
import { coverageRequests, type CoverageRequest, type PositiveRequest } from '../../src/runner/plan/coverage-classes.ts';
import { INPUT_CLASSES, tierOf } from '../../src/runner/plan/input-tiers.ts';
import { Random } from '../../src/runner/plan/random.ts';
import { reproductionScript } from '../../src/runner/report/reproduction.ts';

function op(over: Partial<Operation> & Pick<Operation, 'method' | 'path'>): Operation {
  return { operationId: `${over.method} ${over.path}`, group: '/', service: 'svc', specFile: 'spec.json', pointer: '', parameters: [], responses: [{ status: '201', contentTypes: [], pointer: '' }, { status: '400', contentTypes: [], pointer: '' }], secured: false, extensions: {}, ...over };
}
const body = (schema: JsonSchema, contentType = 'application/json'): RequestBodySpec => ({ required: true, contentType, schema, pointer: '' });
const run = (operation: Operation, positive: PositiveRequest, max = 400, seed = '1') => coverageRequests(operation, positive, new Random(seed), max);
const of = (items: CoverageRequest[], cls: string) => items.filter((i) => i.class === cls);

const TODO: JsonSchema = {
  type: 'object',
  required: ['id', 'value'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    value: { type: 'string', minLength: 1 },
    done: { type: 'boolean' },
    price: { type: ['number', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    meta: { type: 'object' },
    closed: { type: 'object', properties: { x: { type: 'integer' } }, additionalProperties: false },
  },
};
const CREATE = op({ method: 'POST', path: '/todos', requestBody: body(TODO) });
// Keys out of the schema's order: the values go in the schema's order.
const POSITIVE = { pathParams: {}, query: {}, body: { value: 'x', id: 5, done: false, price: 1.5, tags: ['t'], meta: {}, closed: { x: 1 } } };

/** The depth of a JSON text's nesting, read without recursion. */
function depth(text: string): number {
  let deepest = 0;
  let now = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '[' || c === '{') deepest = Math.max(deepest, ++now);
    else if (c === ']' || c === '}') now--;
  }
  return deepest;
}

describe('the classes are rows of the one tier table', () => {
  test('deep-nesting, values-as-array and one-element-array: must-reject', () => {
    for (const c of ['deep-nesting', 'values-as-array', 'one-element-array']) {
      expect(INPUT_CLASSES).toHaveProperty(c, 'must-reject');
      expect(tierOf(c)).toBe('must-reject');
    }
  });
});

describe('values-as-array', () => {
  test("the body's own values as an array, in the schema's property order: invalid for an object body", () => {
    const [item, ...more] = of(run(CREATE, POSITIVE), 'values-as-array');
    expect(more).toEqual([]);
    expect(item).toMatchObject({ valid: false, rawBody: '[5,"x",false,1.5,["t"],{},{"x":1}]', contentType: 'application/json' });
    expect(item?.judgeAs).toBeUndefined();
    expect(item?.label).toBe('body = [5,"x",false,1.5,["t"],{},{"x":1}] (the body\'s own values as an array, not an object)');
    // Three fields, as the real app showed it.
    const small = op({ method: 'POST', path: '/t', requestBody: body({ type: 'object', properties: { id: { type: 'integer' }, value: { type: 'string' }, done: { type: 'boolean' } } }) });
    expect(of(run(small, { pathParams: {}, query: {}, body: { id: 5, value: 'x', done: false } }), 'values-as-array')[0]?.rawBody).toBe('[5,"x",false]');
  });

  test('a schema naming properties but no type lets an array through: only the answer is judged; no object body, none', () => {
    const untyped = op({ method: 'POST', path: '/t', requestBody: body({ properties: { a: { type: 'string' } } }) });
    expect(of(run(untyped, { pathParams: {}, query: {}, body: { a: 'x' } }), 'values-as-array')).toMatchObject([{ valid: true, judgeAs: 'response', rawBody: '["x"]' }]);
    const list = op({ method: 'PUT', path: '/l', requestBody: body({ type: 'array', items: { type: 'integer' } }) });
    expect(of(run(list, { pathParams: {}, query: {}, body: [1] }), 'values-as-array')).toEqual([]);
    expect(of(run(CREATE, { ...POSITIVE, body: {} }), 'values-as-array')).toEqual([]);
  });
});

describe('deep-nesting', () => {
  const items = of(run(CREATE, POSITIVE), 'deep-nesting');
  const at = (label: string) => items.find((i) => i.label.startsWith(label));

  test('the whole body as arrays 5,000 deep, 10 KB, sent raw as the JSON media type: invalid for an object body', () => {
    const whole = at('body = [[[…]]]');
    expect(whole).toMatchObject({ valid: false, contentType: 'application/json', label: 'body = [[[…]]] (nested 5,000 levels deep, the body schema refuses it)' });
    expect(whole?.rawBody).toBe(`${'['.repeat(DEEP_LEVELS)}${']'.repeat(DEEP_LEVELS)}`);
    expect(whole?.body).toBeUndefined();
  });

  test('each object- or array-typed field nested as deep, the rest of the body as it was; judged by the schema', () => {
    expect(items.map((i) => i.label.split(' = ')[0])).toEqual(['body', 'body.tags', 'body.meta', 'body.closed']);
    // An array of strings holds no array: invalid. An object without constraints takes it: only the answer is judged.
    // One that lists its properties and forbids others: invalid.
    expect(at('body.tags')).toMatchObject({ valid: false });
    expect(at('body.tags')?.judgeAs).toBeUndefined();
    expect(at('body.meta')).toMatchObject({ valid: true, judgeAs: 'response', label: 'body.meta = {"a":{"a":…}} (nested 5,000 levels deep; the schema allows it: only the answer is judged)' });
    expect(at('body.closed')).toMatchObject({ valid: false });
    for (const item of items) expect(depth(item.rawBody ?? ''), item.label).toBeGreaterThanOrEqual(DEEP_LEVELS);
    const meta = at('body.meta')!.rawBody!;
    expect(meta.startsWith('{"value":"x","id":5,"done":false,"price":1.5,"tags":["t"],"meta":{"a":{"a":')).toBe(true);
    expect(meta.endsWith('{}' + '}'.repeat(DEEP_LEVELS - 1) + ',"closed":{"x":1}}')).toBe(true);
    // A few kilobytes, far within any body limit.
    for (const item of items) expect(item.rawBody!.length).toBeLessThan(40_000);
  });

  test('an array body schema whose items are unconstrained takes arrays that deep: only the answer is judged', () => {
    const list = op({ method: 'PUT', path: '/l', requestBody: body({ type: 'array' }) });
    expect(of(run(list, { pathParams: {}, query: {}, body: [1] }), 'deep-nesting')).toMatchObject([{ valid: true, judgeAs: 'response' }]);
  });
});

describe('deep bodies in reports', () => {
  test('a reproduction whose last call sends a body 5,000 levels deep is written, that body as it was sent', () => {
    const deep = of(run(CREATE, POSITIVE), 'deep-nesting').find((i) => i.label.startsWith('body.meta'))!.rawBody!;
    const steps = [
      { request: { method: 'POST' as const, url: 'http://x/todos', headers: { 'content-type': 'application/json' }, body: '{"value":"x"}' }, response: { status: 201, json: { id: 'abcdefgh1234' } }, undo: { method: 'DELETE' as const, url: 'http://x/todos/abcdefgh1234' } },
      { request: { method: 'PUT' as const, url: 'http://x/todos/abcdefgh1234', headers: { 'content-type': 'application/json' }, body: deep }, response: { status: 500 } },
    ];
    const script = reproductionScript(steps);
    expect(script).toContain(deep);
  });
});

describe('one-element-array', () => {
  test("each scalar field's positive value as an array of one: invalid, a class of its own, no wrong-type twin", () => {
    const items = run(CREATE, POSITIVE);
    const ones = of(items, 'one-element-array');
    expect(ones.map((i) => [i.label, (i.body as Record<string, unknown>)[i.label.split(' = ')[0]!.slice(5)]]).sort()).toEqual(
      [
        ['body.done = [false] (a one-element array, not a boolean)', [false]],
        ['body.id = [5] (a one-element array, not an integer)', [5]],
        ['body.price = [1.5] (a one-element array, not a number)', [1.5]],
        ['body.value = ["x"] (a one-element array, not a string)', ['x']],
      ].sort(),
    );
    expect(ones.every((i) => !i.valid && i.judgeAs === undefined)).toBe(true);
    // No field's wrong-type sends an array of its own valid value; an array or object field gets none.
    const wrongArrays = of(items, 'wrong-type').filter((i) => Array.isArray((i.body as Record<string, unknown> | undefined)?.[i.label.split(' = ')[0]!.slice(5)]));
    expect(wrongArrays.map((i) => i.label).sort()).toEqual(['body.closed = ["conformance"] (an array, not an object)', 'body.meta = ["conformance"] (an array, not an object)']);
  });

  test('an array of one whose item is no valid value stays wrong-type; the budget the phase sends reaches every field', () => {
    const email = op({ method: 'POST', path: '/p', requestBody: body({ type: 'object', properties: { email: { type: 'string', format: 'email' }, code: { type: 'string', format: 'uuid' } } }) });
    const items = run(email, { pathParams: {}, query: {}, body: { email: 'a@b.co' } });
    expect(of(items, 'one-element-array').map((i) => i.label)).toEqual(['body.email = ["a@b.co"] (a one-element array, not a string)']);
    // code is absent from the positive body: ["conformance"] is no uuid, so it is a wrong kind only.
    expect(of(items, 'wrong-type').some((i) => i.label === 'body.code = ["conformance"] (an array, not a string)')).toBe(true);
    // The coverage phase sends up to 100 class items: every scalar field of a 20-field body still gets one.
    const wide: JsonSchema = { type: 'object', properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { type: 'string', maxLength: 10 }])) };
    const positive = { pathParams: {}, query: {}, body: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, 'v'])) };
    expect(of(run(op({ method: 'POST', path: '/w', requestBody: body(wide) }), positive, 110), 'one-element-array')).toHaveLength(20);
  });
});

describe('the negative cases of every declared request media type', () => {
  const GENERIC = { statuses: [], errorEnvelope: { codePointer: '/error/code', appliesTo: [] }, auth: { header: 'Authorization', rejectStatuses: [401, 403], otherRejectionSeverity: 'warning' }, sideEffects: [], createShape: { shapes: [], page: { totalFormat: 'int64', dataRequired: true }, operations: [] }, missing: { gatewayStatuses: [404] } } as unknown as Profile;
  const schema: JsonSchema = { type: 'object', required: ['name', 'qty'], properties: { name: { type: 'string', minLength: 1 }, qty: { type: 'integer', minimum: 1 }, gift: { type: 'boolean' }, note: { type: 'string' } } };
  const plan = (bodies: RequestBodySpec[]) => {
    const operation = op({ method: 'POST', path: '/orders', requestBody: bodies[0]!, requestBodies: bodies });
    return planOperation({ services: [], operations: [operation] }, operation, GENERIC, { operations: {} } as never, { seed: 1, readOnly: false, allowIrreversible: true, otpSource: false }).cases.filter((c) => c.kind === 'negative');
  };

  test('a form beside JSON: each required field left out, and text no number or boolean parses, as the form', () => {
    const negatives = plan([body(schema), body(schema, 'application/x-www-form-urlencoded'), body(schema, 'application/xml')]);
    const form = negatives.filter((c) => c.request.contentType === 'application/x-www-form-urlencoded');
    expect(form.map((c) => [c.name, c.inputClass])).toEqual([
      ['negative: missing body field name (as application/x-www-form-urlencoded)', 'missing-required'],
      ['negative: missing body field qty (as application/x-www-form-urlencoded)', 'missing-required'],
      ['negative: wrong type for body field qty (as application/x-www-form-urlencoded)', 'wrong-type'],
      ['negative: wrong type for body field gift (as application/x-www-form-urlencoded)', 'wrong-type'],
    ]);
    const body0 = form[0]!.request.body as Record<string, unknown>;
    expect(body0).not.toHaveProperty('name');
    expect(body0).toHaveProperty('qty');
    expect((form[2]!.request.body as Record<string, unknown>)['qty']).toBe('not-a-number');
    expect((form[3]!.request.body as Record<string, unknown>)['gift']).toBe('not-a-boolean');
    // The engine builds no XML body field by field: none under application/xml. JSON's own stay as they were.
    expect(negatives.some((c) => c.request.contentType === 'application/xml')).toBe(false);
    expect(negatives.filter((c) => c.request.contentType === undefined).map((c) => c.name)).toEqual(expect.arrayContaining(['negative: missing body field name', 'negative: missing body field qty', 'negative: wrong type for body field note']));
    for (const c of negatives) expect(tierOf(c.inputClass), c.name).toBe('must-reject');
  });

  test('a second JSON media type carries every wrong kind; multipart as a form; a form alone gets them unnamed', () => {
    const negatives = plan([body(schema), body(schema, 'application/merge-patch+json'), body(schema, 'multipart/form-data')]);
    const patch = negatives.filter((c) => c.request.contentType === 'application/merge-patch+json').map((c) => c.name);
    expect(patch).toEqual(['name', 'qty'].map((f) => `negative: missing body field ${f} (as application/merge-patch+json)`).concat(['name', 'qty', 'gift', 'note'].map((f) => `negative: wrong type for body field ${f} (as application/merge-patch+json)`)));
    expect(negatives.filter((c) => c.request.contentType === 'multipart/form-data')).toHaveLength(4);
    const alone = plan([body(schema, 'application/x-www-form-urlencoded')]);
    expect(alone.map((c) => c.name)).toEqual(['negative: missing body field name', 'negative: missing body field qty', 'negative: wrong type for body field qty', 'negative: wrong type for body field gift']);
  });
});
