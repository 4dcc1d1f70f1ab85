/**
 * OpenAPI constructs as tiny contracts and tiny servers: for each construct, a response schema in the
 * semantics of OpenAPI 3.0 and of 3.1, a body a correct server answers and a body a faulty one answers.
 * The constructs are where validation goes wrong when a version's semantics are mixed up, when `$ref`s are
 * dereferenced into a cyclic graph, or when numbers lose digits.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type Schema = Record<string, unknown>;

export interface Construct {
  /** operationId and path segment. */
  id: string;
  /** What the construct shows. */
  about: string;
  schema: { '3.0': Schema; '3.1': Schema };
  /** Component schemas the response schema refers to (the same for both versions unless given per version). */
  components?: Record<string, Schema> | { '3.0': Record<string, Schema>; '3.1': Record<string, Schema> };
  /** Response bodies as raw JSON text (so integers keep all their digits). */
  correct: { '3.0': string; '3.1': string };
  faulty: { '3.0': string; '3.1': string };
}

const both = (text: string) => ({ '3.0': text, '3.1': text });
const same = (schema: Schema) => ({ '3.0': schema, '3.1': schema });
const obj = (required: string[], properties: Record<string, Schema>): Schema => ({ type: 'object', required, properties });

export const CONSTRUCTS: Construct[] = [
  {
    id: 'recursive-schema',
    about: 'a recursive schema (a tree of nodes) validates to any depth',
    schema: same({ $ref: '#/components/schemas/Node' }),
    components: { Node: obj(['name'], { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } }) },
    correct: both('{"name":"a","children":[{"name":"b","children":[{"name":"c","children":[]}]}]}'),
    faulty: both('{"name":"a","children":[{"name":"b","children":[{"children":[]}]}]}'),
  },
  {
    id: 'int64-beyond-2-53',
    about: 'an int64 above 2^53 is judged on its exact digits (the largest int64 passes, 2^63 fails)',
    schema: same(obj(['ticks'], { ticks: { type: 'integer', format: 'int64' } })),
    correct: both('{"ticks":9223372036854775807}'),
    faulty: both('{"ticks":9223372036854775808}'),
  },
  {
    id: 'format-byte',
    about: 'format byte is base64',
    schema: same(obj(['data'], { data: { type: 'string', format: 'byte' } })),
    correct: both('{"data":"aGVsbG8gd29ybGQ="}'),
    faulty: both('{"data":"not base64!"}'),
  },
  {
    id: 'discriminator',
    about: 'the discriminator picks the oneOf alternative: a Cat that also fits Dog passes, a Dog with a Cat-shaped body fails',
    schema: same({
      oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
      discriminator: { propertyName: 'petType' },
    }),
    components: {
      Cat: obj(['petType', 'name'], { petType: { type: 'string' }, name: { type: 'string' }, meows: { type: 'boolean' } }),
      Dog: obj(['petType', 'name'], { petType: { type: 'string' }, name: { type: 'string' }, barks: { type: 'boolean' } }),
    },
    correct: both('{"petType":"Cat","name":"Tom"}'),
    faulty: both('{"petType":"Dog","name":"Rex","barks":"loudly"}'),
  },
  {
    id: 'nullable',
    about: '3.0 nullable: true and 3.1 type [string, null] allow null and nothing else',
    schema: {
      '3.0': obj(['note'], { note: { type: 'string', nullable: true } }),
      '3.1': obj(['note'], { note: { type: ['string', 'null'] } }),
    },
    correct: both('{"note":null}'),
    faulty: both('{"note":5}'),
  },
  {
    id: 'nullable-left-in',
    about: "3.0's nullable: true left in a 3.1 description (a generator's habit), with a type and without one: the schema compiles, and null is allowed as 3.0 reads it",
    schema: same(obj(['status', 'more'], { status: { type: 'integer', nullable: true }, more: { nullable: true, description: 'anything' } })),
    correct: both('{"status":null,"more":{"a":1}}'),
    faulty: both('{"status":"x","more":null}'),
  },
  {
    id: 'exclusive-minimum',
    about: '3.0 boolean exclusiveMinimum with minimum, 3.1 numeric exclusiveMinimum',
    schema: {
      '3.0': obj(['n'], { n: { type: 'number', minimum: 0, exclusiveMinimum: true } }),
      '3.1': obj(['n'], { n: { type: 'number', exclusiveMinimum: 0 } }),
    },
    correct: both('{"n":0.5}'),
    faulty: both('{"n":0}'),
  },
  {
    id: 'ref-siblings',
    about: '3.0 ignores the siblings of a $ref (maxLength 2 does not apply), 3.1 applies them',
    schema: same(obj(['code'], { code: { $ref: '#/components/schemas/Code', maxLength: 2 } })),
    components: { Code: { type: 'string' } },
    correct: { '3.0': '{"code":"ABCDEF"}', '3.1': '{"code":"AB"}' },
    faulty: { '3.0': '{"code":42}', '3.1': '{"code":"ABCDEF"}' },
  },
  {
    id: 'write-only-required',
    about: 'a required writeOnly property is not expected in a response',
    schema: same({ $ref: '#/components/schemas/User' }),
    components: { User: obj(['name', 'password'], { name: { type: 'string' }, password: { type: 'string', writeOnly: true } }) },
    correct: both('{"name":"ann"}'),
    faulty: both('{"password":"secret"}'),
  },
];

/** A 3.1 schema ajv cannot compile (a boolean exclusiveMinimum is 3.0 syntax): the operation must error. */
export const UNCOMPILABLE = { id: 'uncompilable', schema: { type: 'integer', minimum: 0, exclusiveMinimum: true } };

/** The contract of every construct in one OpenAPI document of the given version. */
export function constructsContract(version: '3.0' | '3.1'): Record<string, unknown> {
  const schemas: Record<string, Schema> = {};
  const paths: Record<string, unknown> = {};
  const response = (schema: Schema) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
  for (const c of CONSTRUCTS) {
    const components = c.components && '3.0' in c.components ? (c.components as Record<string, Record<string, Schema>>)[version] : c.components;
    Object.assign(schemas, components ?? {});
    paths[`/${c.id}`] = { get: { operationId: c.id, summary: c.about, responses: response(c.schema[version]) } };
  }
  if (version === '3.1') paths[`/${UNCOMPILABLE.id}`] = { get: { operationId: UNCOMPILABLE.id, responses: response(UNCOMPILABLE.schema) } };
  return {
    openapi: version === '3.0' ? '3.0.3' : '3.1.0',
    info: { title: `constructs ${version}`, version: '1' },
    servers: [{ url: 'http://localhost/constructs' }],
    paths,
    components: { schemas },
  };
}

export interface TinyServer {
  url: string;
  close(): Promise<void>;
}

/** A server that answers GET /constructs/<id> with the construct's correct or faulty body, else 404. */
export async function constructsServer(version: '3.0' | '3.1', mode: 'correct' | 'faulty'): Promise<TinyServer> {
  const bodies = new Map(CONSTRUCTS.map((c) => [`/constructs/${c.id}`, c[mode][version]]));
  bodies.set(`/constructs/${UNCOMPILABLE.id}`, '1');
  const server: Server = createServer((req, res) => {
    const body = bodies.get((req.url ?? '').split('?')[0] ?? '');
    req.resume();
    if (req.method !== 'GET' || body === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/constructs`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
