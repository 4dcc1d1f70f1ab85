/**
 * A JSON:API-shaped service on a server of its own: every body is one member, `data`, whose object names the record
 * (`{"data": {"type": "blog", "id": "7", "attributes": {…}}}`), and relationships are reached through a path
 * parameter that lists its values (`/blogs/{id}/relationships/{related_field}`, related_field ∈ owner, tags).
 *  - The record in `data` is the path's: an update's `data.id` takes the path's id (the correct server refuses any
 *    other with its documented 409, as JSON:API asks), and a `null` id, which the contract allows, is sent too.
 *  - The fields of the object inside the envelope, and of its objects (`data.attributes.name`), get the classes of a
 *    body's fields: a blank name the contract allows is sent.
 *  - A parameter that lists its values names a choice, not a record to make: the relationship operations run on a
 *    record the run made, with a listed relationship (a refusal of such a request that may be about stored data stays
 *    a warning: the listed value may name something the deployment does not hold; a 405 is no such refusal).
 * Each fault is found on its operation by its check; the correct server gives nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Finding, RunResults } from '../../src/runner/model.ts';
import { removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

afterAll(removeTemps);

const MEDIA = 'application/vnd.api+json';
const ERRORS = { type: 'object', required: ['errors'], properties: { errors: { type: 'array', items: { type: 'object', properties: { detail: { type: 'string' } } } } } };
const RESOURCE = {
  type: 'object',
  required: ['type', 'id', 'attributes'],
  properties: { type: { type: 'string', enum: ['blog'] }, id: { type: 'string' }, attributes: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
};
const doc = (schema: unknown) => ({ content: { [MEDIA]: { schema } } });
const answer = (description: string, schema: unknown) => ({ description, ...doc(schema) });
const errors = (...statuses: string[]) => Object.fromEntries(statuses.map((s) => [s, answer('refused', { $ref: '#/components/schemas/Errors' })]));
const IDENTIFIER = { type: 'object', required: ['type', 'id'], properties: { type: { type: 'string', enum: ['user', 'tag'] }, id: { type: 'string' } } };
const LINKAGE = { type: 'object', required: ['data'], properties: { data: { anyOf: [IDENTIFIER, { type: 'array', items: IDENTIFIER }, { type: 'null' }] } } };
const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const related = { name: 'related_field', in: 'path', required: true, schema: { type: 'string', enum: ['owner', 'tags'] } };
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'blogs', version: '1' },
  servers: [{ url: 'http://127.0.0.1/j' }],
  components: { schemas: { Errors: ERRORS, Blog: RESOURCE } },
  paths: {
    '/blogs': {
      get: { operationId: 'listBlogs', responses: { '200': answer('the blogs', { type: 'object', required: ['data'], properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Blog' } } } }) } },
      post: {
        operationId: 'createBlog',
        requestBody: {
          required: true,
          ...doc({
            type: 'object',
            required: ['data'],
            properties: { data: { type: 'object', required: ['type', 'attributes'], properties: { type: { type: 'string', enum: ['blog'] }, attributes: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } } } } },
          }),
        },
        responses: { '201': answer('created', { type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/Blog' } } }), ...errors('400', '415') },
      },
    },
    '/blogs/{id}': {
      get: { operationId: 'getBlog', parameters: [id], responses: { '200': answer('the blog', { type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/Blog' } } }), ...errors('404') } },
      patch: {
        operationId: 'updateBlog',
        parameters: [id],
        requestBody: {
          required: true,
          // The id may be anything, null included (as drf-spectacular's JSON:API schemas write it).
          ...doc({ type: 'object', required: ['data'], properties: { data: { type: 'object', required: ['type', 'id'], properties: { type: { type: 'string', enum: ['blog'] }, id: {}, attributes: { type: 'object', properties: { name: { type: 'string' } } } } } } }),
        },
        responses: { '200': answer('updated', { type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/Blog' } } }), ...errors('400', '404', '409', '415') },
      },
    },
    '/blogs/{id}/relationships/{related_field}': {
      get: { operationId: 'getRelationship', parameters: [id, related], responses: { '200': answer('the linkage', LINKAGE), ...errors('404') } },
      post: { operationId: 'addToRelationship', parameters: [id, related], requestBody: { required: true, ...doc(LINKAGE) }, responses: { '200': answer('the linkage', LINKAGE), ...errors('400', '404', '415') } },
    },
  },
};

type Fault = 'null-id-refused' | 'relationship-post-405' | 'blank-name-refused';

/**
 * The correct server: records in memory; an update whose `data.id` is a value other than the path's is refused with
 * 409 (a null one is taken: it names no record); a relationship it has takes any linkage (owner and tags, each
 * listed); an unknown record or relationship answers 404.
 */
function server(...faults: Fault[]): Server {
  const blogs = new Map<string, { name: string; links: Record<string, unknown> }>();
  let next = 1;
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body?: unknown, headers: Record<string, string> = {}) =>
        body === undefined ? res.writeHead(status, headers).end() : res.writeHead(status, { 'content-type': MEDIA, ...headers }).end(JSON.stringify(body));
      const refuse = (status: number, detail: string) => send(status, { errors: [{ detail }] });
      const data = (): Record<string, unknown> | undefined => {
        try {
          const b = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: unknown };
          return typeof b.data === 'object' && b.data !== null && !Array.isArray(b.data) ? (b.data as Record<string, unknown>) : undefined;
        } catch {
          return undefined;
        }
      };
      const linkage = (): unknown => {
        try {
          return (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: unknown }).data;
        } catch {
          return undefined;
        }
      };
      // A body in another media type than the one declared is refused.
      if (['POST', 'PATCH'].includes(req.method ?? '') && !(req.headers['content-type'] ?? '').startsWith(MEDIA)) return refuse(415, `bodies are ${MEDIA}`);
      const resource = (key: string) => ({ type: 'blog', id: key, attributes: { name: blogs.get(key)?.name } });
      if (url.pathname === '/j/blogs') {
        if (req.method === 'GET') return send(200, { data: [...blogs.keys()].map(resource) });
        if (req.method !== 'POST') return send(405, undefined, { allow: 'GET, POST' });
        const d = data();
        const attributes = d?.['attributes'] as Record<string, unknown> | undefined;
        if (!d || d['type'] !== 'blog' || typeof attributes?.['name'] !== 'string' || attributes['name'] === '') return refuse(400, 'data.type "blog" and data.attributes.name are required');
        const key = String(next++);
        blogs.set(key, { name: attributes['name'], links: { owner: null, tags: [] } });
        return send(201, { data: resource(key) });
      }
      const m = /^\/j\/blogs\/([^/]+)(?:\/relationships\/([^/]+))?$/.exec(url.pathname);
      if (!m) return refuse(404, 'no such route');
      const key = decodeLeniently(m[1]!);
      const blog = blogs.get(key);
      if (m[2] !== undefined) {
        if (!['GET', 'POST'].includes(req.method ?? '')) return send(405, undefined, { allow: 'GET, POST' });
        if (!blog || !Object.hasOwn(blog.links, m[2])) return refuse(404, 'no such record or relationship');
        if (req.method === 'GET') return send(200, { data: blog.links[m[2]] });
        if (faults.includes('relationship-post-405')) return refuse(405, 'Method "POST" not allowed.');
        const l = linkage();
        const items = l === null ? [] : Array.isArray(l) ? l : [l];
        if (l === undefined || items.some((i) => typeof i !== 'object' || i === null || !['user', 'tag'].includes((i as Record<string, unknown>)['type'] as string) || typeof (i as Record<string, unknown>)['id'] !== 'string')) return refuse(400, 'a resource linkage');
        blog.links[m[2]] = l;
        return send(200, { data: l });
      }
      if (!['GET', 'PATCH'].includes(req.method ?? '')) return send(405, undefined, { allow: 'GET, PATCH' });
      if (!blog) return refuse(404, 'no such blog');
      if (req.method === 'GET') return send(200, { data: resource(key) });
      const d = data();
      if (!d || d['type'] !== 'blog' || !Object.hasOwn(d, 'id')) return refuse(400, 'data.type "blog" and data.id are required');
      // The faulty update reads the id as the record's and refuses a null one (the contract allows any).
      if (d['id'] === null && faults.includes('null-id-refused')) return refuse(400, "The resource identifier object must contain an 'id' member");
      if (d['id'] !== null && String(d['id']) !== key) return refuse(409, 'data.id names another record than the path');
      const attributes = d['attributes'];
      if (attributes !== undefined) {
        if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) return refuse(400, 'data.attributes: an object');
        const name = (attributes as Record<string, unknown>)['name'];
        if (name !== undefined && typeof name !== 'string') return refuse(400, 'data.attributes.name: a string');
        // The faulty update refuses a blank name (the contract allows any string).
        if (name === '' && faults.includes('blank-name-refused')) return refuse(400, 'This field may not be blank.');
        if (typeof name === 'string') blog.name = name;
      }
      return send(200, { data: resource(key) });
    });
  });
}

async function run(srv: Server, seed: string): Promise<RunResults> {
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'blogs.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    return requireResults(await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/j`, '--quiet', '--seed', seed]));
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

const findings = (results: RunResults, operationId: string, check: string): Array<Finding & { case: string }> =>
  (results.operations.find((o) => o.operationId === operationId)?.cases ?? []).flatMap((c) => c.findings.filter((f) => f.check === check).map((f) => ({ ...f, case: c.name })));
const everything = (results: RunResults) =>
  JSON.stringify(results.operations.flatMap((o) => o.cases.flatMap((c) => [...c.findings.map((f) => [o.operationId, c.name, f.check, f.severity, f.message]), ...(c.skipReason ? [[o.operationId, c.name, 'skipped', c.skipReason]] : [])])));
const outcome = (results: RunResults, operationId: string, name: string) => results.operations.find((o) => o.operationId === operationId)?.cases.find((c) => c.name === name)?.outcome;

describe.each(['1', '2', '3'])('JSON:API envelopes and listed path values (seed %s)', (seed) => {
  test('the correct server: nothing found, and the relationship operations ran on a listed relationship', async () => {
    const results = await run(server(), seed);
    expect(summary(results), everything(results)).toEqual([]);
    expect(results.verdict).toBe('conformant');
    // Nothing warned of either: no refusal blamed on a record the run did not get.
    expect(results.operations.flatMap((o) => o.cases.flatMap((c) => c.findings)), everything(results)).toEqual([]);
    for (const op of ['getRelationship', 'addToRelationship', 'updateBlog']) expect(outcome(results, op, 'positive'), `${op}: ${everything(results)}`).toBe('passed');
    // (The server answers 404 to a relationship it does not list and to a record it does not hold: the positive
    // cases passed on a record the run made, with a listed relationship.)
  }, 120_000);

  test('an update that refuses the null id its contract allows: positive-data-accepted on updateBlog, body.data.id = null', async () => {
    const results = await run(server('null-id-refused'), seed);
    expect(summary(results), everything(results)).toEqual(['updateBlog: failed [positive-data-accepted]']);
    const refused = findings(results, 'updateBlog', 'positive-data-accepted').filter((f) => f.severity === 'error');
    expect(refused.map((f) => f.message).join('\n')).toMatch(/body\.data\.id = null/);
  }, 120_000);

  test('an update that refuses the blank name its contract allows: positive-data-accepted on updateBlog, body.data.attributes.name = ""', async () => {
    const results = await run(server('blank-name-refused'), seed);
    expect(summary(results), everything(results)).toEqual(['updateBlog: failed [positive-data-accepted]']);
    expect(findings(results, 'updateBlog', 'positive-data-accepted').filter((f) => f.severity === 'error').map((f) => f.message).join('\n')).toMatch(/body\.data\.attributes\.name = ""/);
  }, 120_000);

  test('a relationship that answers POST with 405: found on addToRelationship, a refusal of a valid request on a record the run made', async () => {
    const results = await run(server('relationship-post-405'), seed);
    expect(summary(results), everything(results)).toEqual(['addToRelationship: failed [negative-data-rejected, positive-data-accepted, status-code-conformance]']);
    expect(findings(results, 'addToRelationship', 'positive-data-accepted').some((f) => f.case === 'positive' && f.severity === 'error' && /rejected with 405/.test(f.message)), everything(results)).toBe(true);
  }, 120_000);
});
