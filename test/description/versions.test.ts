/**
 * Swagger 2.0 and OpenAPI 3.2 read as faithfully as 3.0 and 3.1: the construct table's correct and faulty
 * servers described in 2.0 (the 3.0 twin) and in 3.2 (the 3.1 twin) give the same verdicts as their originals;
 * what only 2.0 says (body and formData parameters, consumes/produces, x-nullable, response headers, security
 * definitions named as the document names them) and what only 3.2 says (QUERY, additionalOperations, querystring,
 * streamed items judged by itemSchema) is run on servers with planted faults; findings point into the user's
 * file; a version the engine does not read is one line with the file, the pointer and what to change (exit 3).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { allFindings, checkIds, operation, removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';
import { CONSTRUCTS, constructsContract, constructsServer } from './constructs.ts';
import { loadContract, loadDescription } from '../../src/runner/description/load.ts';
import { RequestBuilder } from '../../src/runner/execute/request-builder.ts';
import { FEEDS_32, feedsServer, PETS_2, petsServer, type Fault } from './versions.ts';

afterAll(removeTemps);

async function file(name: string, doc: unknown): Promise<string> {
  const path = join(await tempDir('conformance-versions-'), name);
  await writeFile(path, JSON.stringify(doc));
  return path;
}

/** 2.0 has neither oneOf nor writeOnly: those two constructs have no 2.0 twin. */
const NOT_IN_2 = new Set(['discriminator', 'write-only-required']);

/** The 3.0 construct contract written in Swagger 2.0 (definitions, x-nullable, a response's one schema). */
function constructs2(): Record<string, unknown> {
  const v3 = constructsContract('3.0') as { paths: Record<string, { get: Record<string, unknown> }>; components: { schemas: Record<string, unknown> } };
  const to2 = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll('#/components/schemas/', '#/definitions/').replaceAll('"nullable":true', '"x-nullable":true')) as unknown;
  const paths: Record<string, unknown> = {};
  for (const c of CONSTRUCTS.filter((c) => !NOT_IN_2.has(c.id))) {
    paths[`/${c.id}`] = { get: { operationId: c.id, summary: c.about, responses: { '200': { description: 'ok', schema: to2(c.schema['3.0']) } } } };
  }
  return { swagger: '2.0', info: { title: 'constructs 2.0', version: '1' }, host: 'localhost', basePath: '/constructs', schemes: ['http'], produces: ['application/json'], paths, definitions: to2(Object.fromEntries(Object.entries(v3.components.schemas).filter(([name]) => !['User', 'Cat', 'Dog'].includes(name)))) };
}

function constructs32(): Record<string, unknown> {
  const doc = constructsContract('3.1') as { paths: Record<string, unknown> };
  delete doc.paths['/uncompilable'];
  return { ...doc, openapi: '3.2.0' };
}

describe.each([
  ['Swagger 2.0', '3.0', constructs2, CONSTRUCTS.filter((c) => !NOT_IN_2.has(c.id)).map((c) => c.id)],
  ['OpenAPI 3.2', '3.1', constructs32, CONSTRUCTS.map((c) => c.id)],
] as const)('the construct table in %s (twin of %s)', (label, original, contract, ids) => {
  const run = async (mode: 'correct' | 'faulty') => {
    const server = await constructsServer(original, mode);
    try {
      return await runCli(['--spec', await file('constructs.json', contract()), '--base-url', server.url, '--quiet']);
    } finally {
      await server.close();
    }
  };

  test('a correct server passes every construct (exit 0), and the console says how the description was read', async () => {
    const cli = await run('correct');
    const results = requireResults(cli);
    expect(Object.fromEntries(ids.map((id) => [id, operation(results, id).outcome]))).toEqual(Object.fromEntries(ids.map((id) => [id, 'passed'])));
    expect(results.operations.filter((o) => o.outcome !== 'passed').map((o) => o.operationId)).toEqual([]);
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
    expect(cli.code).toBe(0);
    expect(cli.stderr + cli.stdout).toContain(label === 'Swagger 2.0' ? 'Swagger 2.0, read as OpenAPI 3.0' : 'OpenAPI 3.2.0, read as OpenAPI 3.2');
  });

  test('a faulty server fails every construct through response-schema-conformance only (exit 1), at the place in the user\'s file', async () => {
    const cli = await run('faulty');
    const results = requireResults(cli);
    for (const id of ids) {
      const op = operation(results, id);
      expect([id, op.outcome, checkIds(op, 'error')]).toEqual([id, 'failed', ['response-schema-conformance']]);
      for (const f of allFindings({ ...results, operations: [op] }).filter((f) => f.severity === 'error')) expect(f.specLocation).toMatch(new RegExp(`#/paths/~1${id}/get/responses/200$`));
    }
    expect(results.operations).toHaveLength(ids.length);
    expect(cli.code).toBe(1);
  });
});

describe('Swagger 2.0 constructs', () => {
  test('the model: server from host and basePath, media types from consumes/produces, body and formData as request bodies, collectionFormat as the joining, x-nullable, discriminator, schemes named as the document names them', async () => {
    const spec = await file('pets.json', PETS_2);
    const loaded = await loadDescription(spec);
    expect([loaded.version, loaded.readAs]).toEqual(['2.0', 'OpenAPI 3.0']);
    const contract = await loadContract([spec]);
    expect(contract.services[0]).toMatchObject({ serverTemplate: 'http://pets.example/pets-api', id: 'pets-api' });
    const byId = Object.fromEntries(contract.operations.map((o) => [o.operationId, o]));
    expect(byId['listPets']!.parameters.map((p) => [p.name, p.joined])).toEqual([['tags', ','], ['words', ' '], ['cells', '\t'], ['bars', '|'], ['many', undefined]]);
    expect(byId['listPets']!.parameters.map((p) => p.pointer)).toEqual([0, 1, 2, 3, 4].map((i) => `/paths/~1pets/get/parameters/${i}`));
    expect(byId['listPets']!.responses[0]!.headers?.map((h) => [h.name, h.schema])).toEqual([['X-Total', { type: 'integer' }]]);
    expect(byId['createPet']!.requestBodies!.map((b) => b.contentType)).toEqual(['application/json']);
    expect(byId['createPet']!.requestBody?.required).toBe(true);
    expect(byId['renamePet']!.requestBodies!.map((b) => b.contentType)).toEqual(['application/x-www-form-urlencoded']);
    expect(byId['uploadPhoto']!.requestBodies!.map((b) => b.contentType)).toEqual(['multipart/form-data']);
    expect(byId['uploadPhoto']!.responses.find((r) => r.status === '200')?.contentTypes).toEqual(['text/plain']);
    expect(byId['createPet']!.auth?.map((a) => a.name)).toEqual(['basic_auth']);
    expect(byId['listPets']!.auth?.map((a) => a.name)).toEqual(['key_auth']);
    const pet = contract.services[0]!.schemas['Pet'] as Record<string, Record<string, Record<string, unknown>>>;
    expect(pet['properties']!['nick']).toMatchObject({ type: ['string', 'null'] });
    expect(pet['discriminator']).toEqual({ propertyName: 'kind' });
    // Pointers into the conversion, taken back to the 2.0 document.
    expect(loaded.sourcePointer('/components/schemas/Pet/properties/name')).toBe('/definitions/Pet/properties/name');
    expect(loaded.sourcePointer('/paths/~1pets/post/requestBody/content/application~1json/schema')).toBe('/parameters/petBody/schema');
    expect(loaded.sourcePointer('/paths/~1pets~1{id}~1form/put/requestBody/content/application~1x-www-form-urlencoded/schema/properties/age')).toBe('/paths/~1pets~1{id}~1form/put/parameters/1');
    expect(loaded.sourcePointer('/paths/~1pets~1{id}~1photo/post/parameters/0/schema')).toBe('/paths/~1pets~1{id}~1photo/post/parameters/0');
    expect(loaded.sourcePointer('/paths/~1pets/get/responses/200/headers/X-Total/schema')).toBe('/paths/~1pets/get/responses/200/headers/X-Total');
    expect(loaded.sourcePointer('/components/securitySchemes/basic_auth')).toBe('/securityDefinitions/basic_auth');
    // OAuth2 flows under their OpenAPI 3 names, every scheme under the name the 2.0 document gives it.
    const schemes = (loaded.api['components'] as { securitySchemes: Record<string, Record<string, unknown>> }).securitySchemes;
    expect(Object.keys(schemes)).toEqual(['key_auth', 'basic_auth', 'pets_oauth', 'pets_app']);
    expect(Object.keys(schemes['pets_oauth']!['flows'] as object)).toEqual(['authorizationCode']);
    expect(Object.keys(schemes['pets_app']!['flows'] as object)).toEqual(['clientCredentials']);
    expect(schemes['basic_auth']).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  test('read again from the description cache, a 2.0 description is still 2.0 and its pointers still go back', async () => {
    const spec = await file('pets.json', PETS_2);
    const first = await loadDescription(spec);
    const again = await loadDescription(spec);
    expect([again.version, again.declared, again.readAs]).toEqual(['2.0', '2.0', 'OpenAPI 3.0']);
    expect(again.pointerMoves).toEqual(first.pointerMoves);
    expect(again.sourcePointer('/components/schemas/Pet/properties/nick')).toBe('/definitions/Pet/properties/nick');
  });

  test('collectionFormat writes the query as the 2.0 document says: csv, ssv, tsv (tabs), pipes, multi', async () => {
    const contract = await loadContract([await file('pets.json', PETS_2)]);
    const op = contract.operations.find((o) => o.operationId === 'listPets')!;
    const builder = new RequestBuilder({ baseUrls: { [op.service]: 'http://127.0.0.1:1/pets-api' }, runId: 'r', token: () => '', profileOf: () => ({ auth: { header: 'Authorization', everyOperation: false } }) as never });
    const items = ['a', 'b'];
    const url = new URL(builder.url(op, {}, { tags: items, words: items, cells: items, bars: items, many: items }));
    expect(url.search).toBe('?tags=a%2Cb&words=a+b&cells=a%09b&bars=a%7Cb&many=a&many=b');
  });

  const runPets = async (faults: Fault[]) => {
    const server = await petsServer(faults);
    try {
      const args = ['--spec', await file('pets.json', PETS_2), '--base-url', server.url, '--auth', 'key_auth=k3y', '--auth', 'basic_auth=ann:pw', '--seed', '1', '--quiet'];
      return await runCli(args);
    } finally {
      await server.close();
    }
  };

  test('a correct server: every operation tested and passed, no error finding (exit 0); --auth names the schemes as the 2.0 document does', async () => {
    const cli = await runPets([]);
    const results = requireResults(cli);
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
    expect(Object.fromEntries(results.operations.map((o) => [o.operationId, o.outcome]))).toEqual({ listPets: 'passed', createPet: 'passed', renamePet: 'passed', uploadPhoto: 'passed' });
    expect(cli.code).toBe(0);
  });

  test.each([
    ['nullable', 'createPet', 'response-schema-conformance', /#\/definitions\/Pet|#\/paths\/~1pets\/post\/responses\/201/],
    ['header', 'listPets', 'response-headers-conformance', /#\/paths\/~1pets\/get\/responses\/200\/headers\/X-Total$/],
    ['form', 'renamePet', 'not-a-server-error', /#\/paths\/~1pets~1\{id\}~1form\/put/],
    ['upload', 'uploadPhoto', 'content-type-conformance', /#\/paths\/~1pets~1\{id\}~1photo\/post\/produces$/],
    ['auth', 'listPets', 'auth-enforced', /#\/paths\/~1pets\/get/],
  ] as const)('a planted fault (%s) is found on %s by %s, at its place in the 2.0 document (exit 1)', async (fault, operationId, check, location) => {
    const cli = await runPets([fault]);
    const results = requireResults(cli);
    const failed = results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId);
    expect(failed).toEqual([operationId]);
    const op = operation(results, operationId);
    expect(checkIds(op, 'error')).toContain(check);
    const found = allFindings({ ...results, operations: [op] }).filter((f) => f.check === check && f.severity === 'error');
    expect(found.some((f) => location.test(f.specLocation ?? ''))).toBe(true);
    for (const f of allFindings(results)) expect(f.specLocation ?? '').not.toMatch(/#\/components\/|requestBody|\/content/);
    expect(cli.code).toBe(1);
  });
});

describe('OpenAPI 3.2 constructs', () => {
  test('the model: QUERY and additionalOperations are operations, a querystring form its query parameters, a stream its itemSchema, nested tags a group; $self references resolve', async () => {
    const spec = await file('feeds.json', FEEDS_32);
    const contract = await loadContract([spec]);
    const byId = Object.fromEntries(contract.operations.map((o) => [o.operationId, o]));
    expect([byId['searchItems']!.method, byId['purgeItems']!.method, byId['purgeItems']!.pointer]).toEqual(['QUERY', 'PURGE', '/paths/~1items/additionalOperations/PURGE']);
    expect(byId['searchItems']!.group).toBe('feeds › search');
    // An example's 3.2 dataValue is the example the requests start from.
    expect(byId['searchItems']!.requestBody?.examples).toEqual([{ q: 'cats' }]);
    expect(byId['filterItems']!.parameters.map((p) => [p.name, p.in, p.required])).toEqual([['min', 'query', true]]);
    expect(byId['searchItems']!.responses[0]!.media).toEqual([{ type: 'application/jsonl', itemSchema: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } }]);
    expect(contract.services[0]!.warnings ?? []).toEqual([]);
  });

  const runFeeds = async (fault?: 'item' | 'event') => {
    const server = await feedsServer(fault);
    try {
      return await runCli(['--spec', await file('feeds.json', FEEDS_32), '--base-url', server.url, '--seed', '1', '--quiet']);
    } finally {
      await server.close();
    }
  };

  test('a correct server: every operation tested and passed (exit 0)', async () => {
    const cli = await runFeeds();
    const results = requireResults(cli);
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
    expect(Object.fromEntries(results.operations.map((o) => [o.operationId, o.outcome]))).toEqual({ searchItems: 'passed', purgeItems: 'passed', filterItems: 'passed' });
    expect(cli.code).toBe(0);
  });

  test.each([
    ['item', 'searchItems', 'item 2 does not match the item schema'],
    ['event', 'filterItems', 'item 1 does not match the item schema'],
  ] as const)('a broken item of a stream (%s) is a response-schema-conformance finding on %s naming its index (exit 1)', async (fault, operationId, message) => {
    const cli = await runFeeds(fault);
    const results = requireResults(cli);
    expect(results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId)).toEqual([operationId]);
    const op = operation(results, operationId);
    expect(checkIds(op, 'error')).toEqual(['response-schema-conformance']);
    expect(allFindings({ ...results, operations: [op] }).some((f) => f.message.includes(message))).toBe(true);
    expect(cli.code).toBe(1);
  });

  test('what the engine cannot exercise yet is named in the warnings', async () => {
    const doc = structuredClone(FEEDS_32) as { paths: Record<string, Record<string, { parameters?: unknown[] }>> };
    doc.paths['/filter']!['get']!.parameters = [{ name: 'doc', in: 'querystring', content: { 'application/json': { schema: { type: 'object' } } } }];
    const contract = await loadContract([await file('feeds.json', doc)]);
    expect(contract.services[0]!.warnings).toEqual([expect.stringMatching(/#\/paths\/~1filter\/get\/parameters\/0: a querystring parameter whose content is not a form of an object: not sent/)]);
  });
});

describe('versions the engine does not read, and broken 2.0 and 3.2 descriptions', () => {
  test.each([
    ['Swagger 1.2', { swaggerVersion: '1.2', apis: [] }, /#\/swaggerVersion: Swagger 1\.2 is not a version this tool reads .*convert the description to Swagger 2\.0 or OpenAPI 3/],
    ['OpenAPI 4.0', { openapi: '4.0.0', info: { title: 't', version: '1' }, paths: {} }, /#\/openapi: OpenAPI 4\.0\.0 is not a version this tool reads .*set "openapi"/],
    ['a broken 2.0 document', { swagger: '2.0', info: { title: 't', version: '1' }, paths: { '/a': { get: { responses: { '200': { description: 'ok', schema: { type: 'integer' } } }, parameters: [{ name: 'x', in: 'nowhere' }] } } } }, /#\/paths\/~1a\/get\/parameters\/0/],
    ['a broken 3.2 document', { openapi: '3.2.0', info: { title: 't', version: '1' }, paths: { '/a': { query: { operationId: 5, responses: {} } } } }, /#\/paths\/~1a\/query\/operationId: invalid OpenAPI 3\.2: must be string/],
  ])('%s: one line with the file and the pointer, the broken-contract exit code', async (_label, doc, line) => {
    const spec = await file('doc.json', doc);
    const cli = await runCli(['--spec', spec, '--base-url', 'http://127.0.0.1:9/x', '--quiet']);
    expect(cli.code).toBe(2);
    const lines = cli.stderr.trim().split('\n').filter((l) => l.includes(spec));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(cli.stderr).not.toMatch(/\n\s+at /);
  });
});

test('--help names every version that loads', async () => {
  const cli = await runCli(['--help'], { noOut: true });
  const flat = (text: string) => text.replace(/\s+/g, ' ');
  expect(flat(cli.stdout)).toContain('OpenAPI (3.0, 3.1, 3.2) or Swagger 2.0 description');
  const run = await runCli(['run', '--help'], { noOut: true });
  expect(flat(run.stdout)).toContain('OpenAPI 3.0, 3.1 or 3.2, or Swagger 2.0 description');
  expect(cli.stdout + run.stdout).not.toContain('3.0/3.1');
});
