/**
 * Tiny services described in Swagger 2.0 (Pets: body and formData parameters, consumes/produces, x-nullable,
 * response headers, security definitions) and in OpenAPI 3.2 (Feeds: QUERY, additionalOperations, a querystring
 * form, streamed answers judged by itemSchema), each correct or with one planted fault.
 */
import { listening } from '../support/runs.ts';

/** Swagger 2.0's own ways: a Pets service with every 2.0 construct that 3.0 writes otherwise. */
export const PETS_2 = {
  swagger: '2.0',
  info: { title: 'pets', version: '1' },
  host: 'pets.example',
  basePath: '/pets-api',
  schemes: ['http'],
  consumes: ['application/json'],
  produces: ['application/json'],
  securityDefinitions: {
    key_auth: { type: 'apiKey', in: 'header', name: 'X-Key' },
    basic_auth: { type: 'basic' },
    pets_oauth: { type: 'oauth2', flow: 'accessCode', authorizationUrl: 'http://127.0.0.1:9/authorize', tokenUrl: 'http://127.0.0.1:9/token', scopes: { 'pets:read': 'read' } },
    pets_app: { type: 'oauth2', flow: 'application', tokenUrl: 'http://127.0.0.1:9/token', scopes: {} },
  },
  security: [{ key_auth: [] }],
  parameters: { petBody: { name: 'pet', in: 'body', required: true, schema: { $ref: '#/definitions/Pet' } } },
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        parameters: [
          { name: 'tags', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'csv' },
          { name: 'words', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'ssv' },
          { name: 'cells', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'tsv' },
          { name: 'bars', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'pipes' },
          { name: 'many', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'multi' },
        ],
        responses: { '200': { description: 'ok', headers: { 'X-Total': { type: 'integer' } }, schema: { type: 'array', items: { $ref: '#/definitions/Pet' } } } },
      },
      post: {
        operationId: 'createPet',
        security: [{ basic_auth: [] }],
        parameters: [{ name: 'X-Trace', in: 'header', type: 'string' }, { $ref: '#/parameters/petBody' }],
        responses: { '201': { description: 'made', schema: { $ref: '#/definitions/Pet' } }, '400': { description: 'bad' } },
      },
    },
    '/pets/{id}/form': {
      parameters: [{ name: 'id', in: 'path', required: true, type: 'integer' }],
      put: {
        operationId: 'renamePet',
        consumes: ['application/x-www-form-urlencoded'],
        parameters: [{ name: 'name', in: 'formData', type: 'string', required: true }, { name: 'age', in: 'formData', type: 'integer' }],
        responses: { '200': { description: 'ok', schema: { $ref: '#/definitions/Pet' } }, '400': { description: 'bad' }, '404': { description: 'none' } },
      },
    },
    '/pets/{id}/photo': {
      post: {
        operationId: 'uploadPhoto',
        consumes: ['multipart/form-data'],
        produces: ['text/plain'],
        parameters: [{ name: 'id', in: 'path', required: true, type: 'integer' }, { name: 'file', in: 'formData', type: 'file', required: true }, { name: 'caption', in: 'formData', type: 'string' }],
        responses: { '200': { description: 'stored', schema: { type: 'string' } }, '400': { description: 'bad' }, '404': { description: 'none' } },
      },
    },
  },
  definitions: {
    Pet: { type: 'object', required: ['name', 'kind'], discriminator: 'kind', properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' }, kind: { type: 'string' }, nick: { type: 'string', 'x-nullable': true } } },
  },
};

export type Fault = 'header' | 'nullable' | 'form' | 'upload' | 'auth';

/** The Pets server: correct, or with one planted fault per 2.0 construct. */
export async function petsServer(faults: Fault[] = []) {
  const { createServer } = await import('node:http');
  const pets: Array<{ id: number; name: string; kind: string; nick: unknown }> = [];
  const pet = (name: string, kind = 'cat', nick: unknown = null) => {
    const made = { id: pets.length + 1, name, kind, nick };
    pets.push(made);
    return made;
  };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const reply = (status: number, value?: unknown, type = 'application/json', headers: Record<string, string> = {}) => {
        res.writeHead(status, value === undefined ? headers : { ...headers, 'content-type': type }).end(value === undefined ? undefined : type === 'application/json' ? JSON.stringify(value) : String(value));
      };
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.replace(/^\/pets-api/, '');
      const key = req.headers['x-key'] === 'k3y';
      const basic = req.headers['authorization'] === `Basic ${Buffer.from('ann:pw').toString('base64')}`;
      if (req.method === 'GET' && path === '/pets') {
        if (!key && !faults.includes('auth')) return reply(401, undefined, undefined, { 'www-authenticate': 'Key realm="pets"' });
        return reply(200, pets, 'application/json', { 'x-total': faults.includes('header') ? 'lots' : String(pets.length) });
      }
      if (req.method === 'POST' && path === '/pets') {
        if (!basic) return reply(401, undefined, undefined, { 'www-authenticate': 'Basic realm="pets"' });
        let parsed: Record<string, unknown> | undefined;
        try {
          parsed = JSON.parse(body) as Record<string, unknown>;
        } catch {
          return reply(400);
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return reply(400);
        if (!String(req.headers['content-type']).startsWith('application/json')) return reply(400);
        if (typeof parsed['name'] !== 'string' || typeof parsed['kind'] !== 'string' || !(parsed['nick'] === undefined || parsed['nick'] === null || typeof parsed['nick'] === 'string')) return reply(400);
        const made = pet(parsed['name'], parsed['kind'], parsed['nick'] ?? null);
        return reply(201, faults.includes('nullable') ? { ...made, nick: 5 } : made);
      }
      const form = /^\/pets\/(-?\d+)\/form$/.exec(path);
      if (req.method === 'PUT' && form) {
        if (!key) return reply(401, undefined, undefined, { 'www-authenticate': 'Key realm="pets"' });
        const fields = new URLSearchParams(body);
        if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded') || !fields.has('name')) return reply(faults.includes('form') ? 500 : 400);
        if (fields.has('age') && !/^-?\d+$/.test(fields.get('age')!)) return reply(400);
        const found = pets.find((p) => p.id === Number(form[1]));
        if (!found) return reply(404);
        found.name = fields.get('name')!;
        return reply(200, found);
      }
      const photo = /^\/pets\/(-?\d+)\/photo$/.exec(path);
      if (req.method === 'POST' && photo) {
        if (!key) return reply(401, undefined, undefined, { 'www-authenticate': 'Key realm="pets"' });
        const multipart = String(req.headers['content-type']).startsWith('multipart/form-data');
        if (!multipart || !/name="file"/.test(body)) return reply(400);
        if (!pets.some((p) => p.id === Number(photo[1]))) return reply(404);
        return faults.includes('upload') ? reply(200, { stored: true }) : reply(200, 'stored', 'text/plain');
      }
      reply(404);
    });
  });
  return listening(server, '/pets-api');
}

/** OpenAPI 3.2's own ways: QUERY, additionalOperations, a querystring form, a JSON Lines stream and server-sent events. */
export const FEEDS_32 = {
  openapi: '3.2.0',
  $self: 'https://feeds.example/openapi.json',
  info: { title: 'feeds', version: '1' },
  tags: [{ name: 'feeds', kind: 'nav' }, { name: 'search', parent: 'feeds', summary: 'finding items' }],
  servers: [{ url: 'http://localhost/feeds' }],
  paths: {
    '/items': {
      query: {
        operationId: 'searchItems',
        tags: ['search'],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } }, examples: { cats: { dataValue: { q: 'cats' } } } } } },
        responses: { '200': { description: 'items', content: { 'application/jsonl': { itemSchema: { $ref: 'https://feeds.example/openapi.json#/components/schemas/Item' } } } }, '400': { description: 'bad' } },
      },
      additionalOperations: {
        PURGE: { operationId: 'purgeItems', responses: { '204': { description: 'gone' } } },
      },
    },
    '/filter': {
      get: {
        operationId: 'filterItems',
        parameters: [{ name: 'form', in: 'querystring', content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['min'], properties: { min: { type: 'integer', minimum: 0 } } } } } }],
        responses: { '200': { description: 'events', content: { 'text/event-stream': { itemSchema: { type: 'object', required: ['data'], properties: { data: { type: 'string', pattern: '^[0-9]+$' }, event: { type: 'string' } } } } } }, '400': { description: 'bad' } },
      },
    },
  },
  components: { schemas: { Item: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } } },
};

export async function feedsServer(fault?: 'item' | 'event') {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.replace(/^\/feeds/, '');
      if (req.method === 'QUERY' && path === '/items') {
        let q: unknown;
        try {
          q = (JSON.parse(body) as { q?: unknown }).q;
        } catch {
          q = undefined;
        }
        if (typeof q !== 'string') return res.writeHead(400).end();
        return res.writeHead(200, { 'content-type': 'application/jsonl' }).end(`{"id":1}\n{"id":2}\n${fault === 'item' ? '{"id":"three"}' : '{"id":3}'}\n`);
      }
      if (req.method === 'PURGE' && path === '/items') return res.writeHead(204).end();
      if (req.method === 'GET' && path === '/filter') {
        const min = url.searchParams.get('min');
        if (min === null || !/^\d+$/.test(min)) return res.writeHead(400).end();
        return res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`: hello\n\nevent: tick\ndata: 1\n\ndata: ${fault === 'event' ? 'two' : '2'}\n\n`);
      }
      res.writeHead(404).end();
    });
  });
  return listening(server, '/feeds');
}

