/**
 * One breaking change per rule, on pairs of contract versions built here: each is reported with its rule id on
 * the operation it touches, and nothing else is called breaking; pairs that change nothing a client sees
 * ($refs moved, allOf reshuffled or re-split, a recursive schema renamed) are not called breaking.
 */
import { describe, expect, test } from 'vitest';
import { compareDescriptions, loadForComparison } from '../../src/runner/compat/compare.ts';
import { RULES } from '../../src/runner/compat/rules.ts';
import type { Change } from '../../src/runner/compat/types.ts';
import { baseDoc, changed, writePair, type Doc } from './pairs.ts';

const pets = (d: Doc) => d['components'].schemas.Pet;
const newPet = (d: Doc) => d['components'].schemas.NewPet;

async function compare(base: Doc, revision: Doc): Promise<Change[]> {
  const pair = await writePair(base, revision);
  try {
    return compareDescriptions(await loadForComparison(pair.base), await loadForComparison(pair.revision), new Date('2026-01-01'));
  } finally {
    await pair.done();
  }
}

/** [rule, the operation(s) it must be reported on, the change]. */
const BREAKING: Array<[string, string[], (d: Doc) => void]> = [
  ['api-path-removed-without-deprecation', ['GET /pets/{id}', 'DELETE /pets/{id}'], (d) => delete d['paths']['/pets/{id}']],
  ['api-removed-without-deprecation', ['DELETE /pets/{id}'], (d) => delete d['paths']['/pets/{id}'].delete],
  ['response-success-status-removed', ['GET /pets'], (d) => {
    d['paths']['/pets'].get.responses['206'] = d['paths']['/pets'].get.responses['200'];
    delete d['paths']['/pets'].get.responses['200'];
  }],
  ['request-body-media-type-removed', ['POST /pets'], (d) => delete d['paths']['/pets'].post.requestBody.content['application/xml']],
  ['response-media-type-removed', ['GET /pets/{id}'], (d) => delete d['paths']['/pets/{id}'].get.responses['200'].content['text/plain']],
  ['new-required-request-parameter', ['GET /pets'], (d) => d['paths']['/pets'].get.parameters.push({ name: 'owner', in: 'query', required: true, schema: { type: 'string' } })],
  ['request-parameter-became-required', ['GET /pets'], (d) => (d['paths']['/pets'].get.parameters[0].required = true)],
  ['request-parameter-max-decreased', ['GET /pets'], (d) => (d['paths']['/pets'].get.parameters[0].schema.maximum = 50)],
  ['request-parameter-type-changed', ['GET /pets'], (d) => (d['paths']['/pets'].get.parameters[1].schema = { type: 'boolean' })],
  ['request-parameter-default-value-changed', ['GET /pets'], (d) => (d['paths']['/pets'].get.parameters[0].schema.default = 10)],
  ['new-required-request-property', ['POST /pets'], (d) => {
    newPet(d).properties.owner = { type: 'string' };
    newPet(d).required.push('owner');
  }],
  ['request-property-became-required', ['POST /pets'], (d) => newPet(d).required.push('born')],
  ['request-property-type-changed', ['POST /pets'], (d) => (newPet(d).properties.born = { type: 'integer' })],
  ['request-property-enum-value-removed', ['POST /pets'], (d) => (newPet(d).properties.tag.enum = ['cat'])],
  ['request-property-became-enum', ['POST /pets'], (d) => (newPet(d).properties.code.enum = ['A', 'B'])],
  ['request-property-max-length-decreased', ['POST /pets'], (d) => (newPet(d).properties.name.maxLength = 20)],
  ['request-property-min-increased', ['POST /pets'], (d) => (newPet(d).properties.weight.minimum = 1)],
  ['request-property-pattern-added', ['POST /pets'], (d) => (newPet(d).properties.code.pattern = '^[A-Z]+$')],
  ['request-property-format-added', ['POST /pets'], (d) => (newPet(d).properties.born.format = 'date')],
  ['request-property-max-items-decreased', ['POST /pets'], (d) => (newPet(d).properties.toys.maxItems = 3)],
  ['response-required-property-removed', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => {
    delete pets(d).properties.name;
    pets(d).required = ['id'];
  }],
  ['response-property-became-optional', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => (pets(d).required = ['id'])],
  ['response-property-became-nullable', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => (pets(d).properties.nickname.nullable = true)],
  ['response-property-type-generalized', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => (pets(d).properties.id.type = 'number')],
  ['response-property-type-changed', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => (pets(d).properties.nickname.type = 'integer')],
  ['response-property-max-increased', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => (pets(d).properties.weight.maximum = 500)],
  ['response-property-max-length-unset', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => delete pets(d).properties.name.maxLength],
  ['response-body-wrapped-in-one-of', ['GET /pets/{id}'], (d) => {
    d['paths']['/pets/{id}'].get.responses['200'].content['application/json'].schema = { oneOf: [{ $ref: '#/components/schemas/Pet' }, { $ref: '#/components/schemas/NewPet' }] };
  }],
  ['required-response-header-removed', ['GET /pets'], (d) => delete d['paths']['/pets'].get.responses['200'].headers['X-Rate']],
  ['response-header-became-optional', ['GET /pets'], (d) => (d['paths']['/pets'].get.responses['200'].headers['X-Rate'].required = false)],
  ['new-required-request-default-parameter-to-existing-path', ['GET /pets', 'POST /pets'], (d) => (d['paths']['/pets'].parameters = [{ name: 'tenant', in: 'query', required: true, schema: { type: 'string' } }])],
  ['request-parameter-became-enum', ['GET /pets'], (d) => (d['paths']['/pets'].get.parameters[1].schema.enum = ['a', 'b'])],
  ['request-body-added-required', ['DELETE /pets/{id}'], (d) => (d['paths']['/pets/{id}'].delete.requestBody = { required: true, content: { 'application/json': { schema: { type: 'object' } } } })],
  ['response-media-type-name-generalized', ['GET /pets/{id}'], (d) => {
    const content = d['paths']['/pets/{id}'].get.responses['200'].content;
    content['text/*'] = content['text/plain'];
    delete content['text/plain'];
  }],
  ['api-security-added', ['GET /pets/{id}'], (d) => (d['paths']['/pets/{id}'].get.security = [{ oauth: ['read'] }])],
  ['api-security-scope-added', ['DELETE /pets/{id}'], (d) => (d['paths']['/pets/{id}'].delete.security = [{ oauth: ['write', 'read'] }])],
  ['api-security-alternative-removed', ['DELETE /pets/{id}'], (d) => {
    d['components'].securitySchemes.key = { type: 'apiKey', in: 'header', name: 'X-Key' };
    d['paths']['/pets/{id}'].delete.security = [{ key: [] }];
  }],
];

/** Rows whose base differs from the shared one: [rule, operations, base change, revision change, openapi]. */
const WITH_BASE: Array<[string, string[], (d: Doc) => void, (d: Doc) => void, string?]> = [
  ['api-removed-before-sunset', ['DELETE /pets/{id}'], (d) => Object.assign(d['paths']['/pets/{id}'].delete, { deprecated: true, 'x-sunset': '2099-01-01' }), (d) => delete d['paths']['/pets/{id}'].delete],
  ['request-body-became-required', ['POST /pets'], (d) => (d['paths']['/pets'].post.requestBody.required = false), (d) => (d['paths']['/pets'].post.requestBody.required = true)],
  ['sunset-deleted', ['GET /pets'], (d) => Object.assign(d['paths']['/pets'].get, { deprecated: true, 'x-sunset': '2099-01-01' }), (d) => delete d['paths']['/pets'].get['x-sunset']],
  ['api-sunset-date-changed-too-small', ['GET /pets'], (d) => Object.assign(d['paths']['/pets'].get, { deprecated: true, 'x-sunset': '2099-01-01' }), (d) => (d['paths']['/pets'].get['x-sunset'] = '2098-01-01')],
  ['api-stability-decreased', ['GET /pets'], (d) => (d['paths']['/pets'].get['x-stability-level'] = 'beta'), (d) => (d['paths']['/pets'].get['x-stability-level'] = 'alpha')],
  ['request-parameter-removed-before-sunset', ['GET /pets'], (d) => Object.assign(d['paths']['/pets'].get.parameters[1], { deprecated: true, 'x-sunset': '2099-01-01' }), (d) => d['paths']['/pets'].get.parameters.splice(1, 1)],
  ['request-property-any-of-removed', ['POST /pets'], (d) => (newPet(d).properties.code = { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'integer', minimum: 0 }] }), (d) => newPet(d).properties.code.anyOf.pop()],
  ['request-property-one-of-removed', ['POST /pets'], (d) => (newPet(d).properties.code = { oneOf: [{ type: 'string', maxLength: 5 }, { type: 'integer', minimum: 0 }] }), (d) => newPet(d).properties.code.oneOf.pop()],
  ['response-property-one-of-added', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => (pets(d).properties.nickname = { oneOf: [{ type: 'string', maxLength: 5 }, { type: 'integer', minimum: 0 }] }), (d) => pets(d).properties.nickname.oneOf.push({ type: 'boolean', enum: [true] })],
  ['request-property-list-of-types-narrowed', ['POST /pets'], (d) => (newPet(d).properties.code = { type: ['string', 'integer'] }), (d) => (newPet(d).properties.code.type = ['string']), '3.1.0'],
  ['response-property-list-of-types-widened', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => (pets(d).properties.nickname = { type: ['string'] }), (d) => (pets(d).properties.nickname.type = ['string', 'integer']), '3.1.0'],
  ['request-property-prefix-items-removed', ['POST /pets'], (d) => (newPet(d).properties.toys = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] }), (d) => newPet(d).properties.toys.prefixItems.pop(), '3.1.0'],
  ['request-body-dependent-required-added', ['POST /pets'], () => {}, (d) => (newPet(d).dependentRequired = { tag: ['code'] }), '3.1.0'],
  ['request-body-if-added', ['POST /pets'], () => {}, (d) => (newPet(d).if = { required: ['tag'] }), '3.1.0'],
  ['request-body-then-added', ['POST /pets'], (d) => (newPet(d).if = { required: ['tag'] }), (d) => (newPet(d).then = { required: ['code'] }), '3.1.0'],
  ['request-property-const-added', ['POST /pets'], () => {}, (d) => (newPet(d).properties.code.const = 'A'), '3.1.0'],
  ['response-property-pattern-property-removed', ['GET /pets', 'POST /pets', 'GET /pets/{id}'], (d) => (pets(d).properties.meta = { type: 'object', patternProperties: { '^x-': { type: 'string' } } }), (d) => delete pets(d).properties.meta.patternProperties, '3.1.0'],
  ['webhook-removed', ['POST webhook:petAdopted'], (d) => (d['webhooks'] = { petAdopted: { post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '200': { description: 'ok' } } } } }), (d) => delete d['webhooks'], '3.1.0'],
];

const ROWS: Array<[string, string[], (d: Doc) => void, (d: Doc) => void, string | undefined]> = [
  ...BREAKING.map(([rule, ops, change]) => [rule, ops, () => {}, change, undefined] as [string, string[], (d: Doc) => void, (d: Doc) => void, undefined]),
  ...WITH_BASE.map(([rule, ops, b, r, v]) => [rule, ops, b, r, v] as [string, string[], (d: Doc) => void, (d: Doc) => void, string | undefined]),
];

const openapi31 = (d: Doc) => {
  // 3.1 spells 3.0's nullable as a type; the shared base has none, so only the version changes.
  d['openapi'] = '3.1.0';
};

describe('one breaking change each: reported with its rule id on the operation it touches, nothing else breaking', () => {
  test.each(ROWS)('%s', async (rule, operations, baseChange, change, version) => {
    const base = changed((d) => {
      if (version) openapi31(d);
      baseChange(d);
    });
    const revision = changed(change, base);
    const changes = await compare(base, revision);
    const breaking = changes.filter((c) => c.level === 'breaking');
    expect(RULES.get(rule)?.level, `${rule} is a breaking rule of the table`).toBe('breaking');
    expect(breaking.filter((c) => c.rule === rule).map((c) => c.operation).sort()).toEqual([...operations].sort());
    expect(breaking.filter((c) => c.rule !== rule).map((c) => `${c.rule} ${c.operation}`)).toEqual([]);
    for (const c of breaking) {
      expect(c.sentence).toContain(c.operation!);
      expect(c.fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(c.base ?? c.revision).toMatch(/^\//);
    }
  });
});

/** [rule, level, the change]: the warnings, and a few changes that break nothing. */
const NOT_BREAKING: Array<[string, 'warning' | 'info', (d: Doc) => void]> = [
  ['endpoint-deprecated', 'warning', (d) => (d['paths']['/pets'].get.deprecated = true)],
  ['endpoint-deprecated-with-sunset', 'info', (d) => Object.assign(d['paths']['/pets'].get, { deprecated: true, 'x-sunset': '2099-01-01' })],
  ['api-operation-id-removed', 'warning', (d) => (d['paths']['/pets'].get.operationId = 'pets-list')],
  ['request-body-additional-properties-closed', 'warning', (d) => (newPet(d).additionalProperties = false)],
  ['response-property-enum-value-added', 'warning', (d) => (pets(d).properties.tag.enum = ['cat', 'dog', 'bird'])],
  ['request-parameter-removed', 'warning', (d) => d['paths']['/pets'].get.parameters.splice(1, 1)],
  ['response-optional-property-removed', 'warning', (d) => delete pets(d).properties.nickname],
  ['new-optional-request-property', 'info', (d) => (newPet(d).properties.colour = { type: 'string' })],
  ['request-property-enum-value-added', 'info', (d) => (newPet(d).properties.tag.enum = ['cat', 'dog', 'bird'])],
  ['request-property-max-length-increased', 'info', (d) => (newPet(d).properties.name.maxLength = 80)],
  ['response-optional-property-added', 'info', (d) => (pets(d).properties.colour = { type: 'string' })],
  ['response-property-became-required', 'info', (d) => pets(d).required.push('tag')],
  ['response-property-max-decreased', 'info', (d) => (pets(d).properties.weight.maximum = 100)],
  ['endpoint-added', 'info', (d) => (d['paths']['/owners'] = { get: { responses: { '200': { description: 'owners' } } } })],
  ['response-non-success-status-added', 'info', (d) => (d['paths']['/pets'].get.responses['404'] = { description: 'none' })],
  ['new-optional-request-parameter', 'info', (d) => d['paths']['/pets'].get.parameters.push({ name: 'q', in: 'query', schema: { type: 'string' } })],
  ['api-security-removed', 'info', (d) => delete d['paths']['/pets/{id}'].delete.security],
];

describe('changes that break nothing: never called breaking', () => {
  test.each(NOT_BREAKING)('%s is a %s', async (rule, level, change) => {
    const changes = await compare(baseDoc(), changed(change));
    expect(changes.filter((c) => c.level === 'breaking').map((c) => `${c.rule} ${c.operation}`)).toEqual([]);
    expect(changes.find((c) => c.rule === rule)?.level).toBe(level);
  });

  test('an identical pair has no change', async () => {
    expect(await compare(baseDoc(), baseDoc())).toEqual([]);
  });

  test('descriptions, titles and examples changed: nothing', async () => {
    const changes = await compare(
      baseDoc(),
      changed((d) => {
        d['paths']['/pets'].get.description = 'All the pets';
        pets(d).properties.name.description = 'The name';
        pets(d).example = { id: 1, name: 'Rex' };
      }),
    );
    expect(changes).toEqual([]);
  });

  test('a schema moved to another $ref (inlined, renamed): nothing', async () => {
    const revision = changed((d) => {
      d['components'].schemas.Animal = d['components'].schemas.Pet;
      delete d['components'].schemas.Pet;
      const ref = { $ref: '#/components/schemas/Animal' };
      d['paths']['/pets'].get.responses['200'].content['application/json'].schema.items = ref;
      d['paths']['/pets'].post.responses['201'].content['application/json'].schema = ref;
      // Inlined where it was a reference.
      d['paths']['/pets/{id}'].get.responses['200'].content['application/json'].schema = structuredClone(d['components'].schemas.Animal);
      d['paths']['/pets'].post.requestBody.content['application/json'].schema = structuredClone(d['components'].schemas.NewPet);
      // A parameter moved into components.
      d['components'].parameters = { Limit: d['paths']['/pets'].get.parameters[0] };
      d['paths']['/pets'].get.parameters[0] = { $ref: '#/components/parameters/Limit' };
    });
    const changes = await compare(baseDoc(), revision);
    // The component named Pet is gone (info): nothing else.
    expect(changes.map((c) => c.rule)).toEqual(['api-schema-removed']);
    expect(changes[0]!.level).toBe('info');
  });

  test('allOf reshuffled and re-split: nothing', async () => {
    const base = changed((d) => {
      d['components'].schemas.Named = { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 50 } } };
      d['components'].schemas.Tagged = { type: 'object', properties: { tag: { type: 'string', enum: ['cat', 'dog'] } } };
      d['components'].schemas.Pet = { allOf: [{ $ref: '#/components/schemas/Named' }, { $ref: '#/components/schemas/Tagged' }, { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, weight: { type: 'number', minimum: 0, maximum: 200 }, nickname: { type: 'string' } } }] };
    });
    const reshuffled = changed((d) => {
      const [a, b, c] = d['components'].schemas.Pet.allOf;
      d['components'].schemas.Pet.allOf = [c, b, a];
    }, base);
    expect(await compare(base, reshuffled)).toEqual([]);
    // The same schema written flat (the base of every other test) against the composition.
    const flat = (await compare(baseDoc(), base)).filter((c) => c.rule !== 'api-schema-removed');
    expect(flat.filter((c) => c.level !== 'info' || !c.rule.startsWith('api-schema')).map((c) => c.rule)).toEqual([]);
  });

  test('a recursive schema renamed and re-laid out: nothing; a change inside it is found once', async () => {
    const withTree = (name: string) => (d: Doc) => {
      d['components'].schemas[name] = { type: 'object', required: ['value'], properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: `#/components/schemas/${name}` } } } };
      d['paths']['/tree'] = { get: { responses: { '200': { description: 'a tree', content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } } } } };
    };
    const base = changed(withTree('Node'));
    const renamed = changed((d) => {
      withTree('TreeNode')(d);
      delete d['components'].schemas.Node;
    }, base);
    expect((await compare(base, renamed)).filter((c) => c.rule !== 'api-schema-removed')).toEqual([]);
    const deeper = changed((d) => delete d['components'].schemas.Node.required, base);
    const changes = await compare(base, deeper);
    expect(changes.map((c) => `${c.rule} ${c.operation}`)).toEqual(['response-property-became-optional GET /tree']);
  });
});

describe('direction and meaning', () => {
  test('a change inside `not` is read the other way', async () => {
    const base = changed((d) => (newPet(d).properties.code.not = { type: 'string', maxLength: 3 }));
    const revision = changed((d) => (newPet(d).properties.code.not.maxLength = 5), base);
    const changes = await compare(base, revision);
    // not { maxLength 3 } -> not { maxLength 5 }: codes of 4 and 5 characters are refused now.
    expect(changes.find((c) => c.rule === 'request-property-max-length-increased')?.level).toBe('breaking');
  });

  test('a path parameter renamed is the same path and the same parameter', async () => {
    const revision = changed((d) => {
      const item = d['paths']['/pets/{id}'];
      delete d['paths']['/pets/{id}'];
      for (const op of [item.get, item.delete]) op.parameters[0].name = 'petId';
      d['paths']['/pets/{petId}'] = item;
    });
    const changes = await compare(baseDoc(), revision);
    expect(changes).toEqual([]);
  });

  test('a oneOf of bare types reads as the list of types 3.1 writes', async () => {
    const base = changed((d) => {
      d['openapi'] = '3.1.0';
      newPet(d).properties.code = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
    });
    expect(await compare(base, changed((d) => (newPet(d).properties.code = { type: ['integer', 'string'] }), base))).toEqual([]);
    const narrowed = await compare(base, changed((d) => (newPet(d).properties.code = { type: 'string' }), base));
    expect(narrowed.map((c) => `${c.rule} ${c.level}`)).toEqual(['request-property-list-of-types-narrowed breaking']);
  });

  test('3.0 nullable and 3.1 type null read the same', async () => {
    const base = changed((d) => (pets(d).properties.nickname.nullable = true));
    const revision = changed((d) => {
      d['openapi'] = '3.1.0';
      pets(d).properties.nickname = { type: ['string', 'null'] };
    }, base);
    expect((await compare(base, revision)).filter((c) => c.level === 'breaking')).toEqual([]);
  });

  test('fingerprints are stable across runs and across a $ref move', async () => {
    const revision = changed((d) => (newPet(d).properties.name.maxLength = 20));
    const again = await compare(baseDoc(), revision);
    const inlined = changed((d) => (d['paths']['/pets'].post.requestBody.content['application/json'].schema = structuredClone(newPet(d))), revision);
    const moved = await compare(baseDoc(), inlined);
    const one = again.find((c) => c.rule === 'request-property-max-length-decreased')!;
    expect(moved.find((c) => c.rule === 'request-property-max-length-decreased')!.fingerprint).toBe(one.fingerprint);
    expect((await compare(baseDoc(), revision)).find((c) => c.rule === one.rule)!.fingerprint).toBe(one.fingerprint);
  });
});
