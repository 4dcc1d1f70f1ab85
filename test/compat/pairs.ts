/** Contract version pairs built in code: a base description and one change applied to a copy of it. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Doc = Record<string, any>;

/** The base: two paths, a component schema used by both, parameters, headers, security. */
export function baseDoc(openapi = '3.0.3'): Doc {
  return {
    openapi,
    info: { title: 'Pets', version: '1.0.0' },
    paths: {
      '/pets': {
        get: {
          operationId: 'list-pets',
          parameters: [
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', maximum: 100, default: 20 } },
            { name: 'X-Tenant', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'the pets',
              headers: { 'X-Rate': { required: true, schema: { type: 'integer' } }, 'X-Trace': { schema: { type: 'string' } } },
              content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } },
            },
            '400': { description: 'bad request' },
          },
        },
        post: {
          operationId: 'create-pet',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } }, 'application/xml': { schema: { type: 'object' } } } },
          responses: { '201': { description: 'created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
        },
      },
      '/pets/{id}': {
        get: {
          operationId: 'get-pet',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: { '200': { description: 'a pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } }, 'text/plain': { schema: { type: 'string' } } } } },
        },
        delete: {
          operationId: 'delete-pet',
          security: [{ oauth: ['write'] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: { '204': { description: 'deleted' } },
        },
      },
    },
    components: {
      securitySchemes: { oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { read: 'read', write: 'write' } } } } },
      schemas: {
        Pet: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: { type: 'integer' },
            name: { type: 'string', maxLength: 50 },
            tag: { type: 'string', enum: ['cat', 'dog'] },
            weight: { type: 'number', minimum: 0, maximum: 200 },
            nickname: { type: 'string' },
          },
        },
        NewPet: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', maxLength: 50 },
            tag: { type: 'string', enum: ['cat', 'dog'] },
            weight: { type: 'number', minimum: 0 },
            born: { type: 'string' },
            toys: { type: 'array', items: { type: 'string' }, maxItems: 10 },
            code: { type: 'string' },
          },
        },
      },
    },
  };
}

/** A copy of the base with a change applied. */
export function changed(change: (d: Doc) => void, base: Doc = baseDoc()): Doc {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}

/** Writes the two documents to a temporary directory; `done` removes it. */
export async function writePair(base: Doc, revision: Doc): Promise<{ base: string; revision: string; done: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'compat-pair-'));
  const [b, r] = [join(dir, 'base.json'), join(dir, 'revision.json')];
  await writeFile(b, JSON.stringify(base));
  await writeFile(r, JSON.stringify(revision));
  return { base: b, revision: r, done: () => rm(dir, { recursive: true, force: true }) };
}
