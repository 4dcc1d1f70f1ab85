/**
 * A description named by an http URL on this machine loads, $refs to other files on the same server included
 * (the reference parser refuses loopback and private addresses unless told the user chose them).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadDescription } from '../../src/runner/description/load.ts';

const files: Record<string, string> = {
  '/specs/api.yaml': `openapi: 3.1.0
info: { title: Served, version: '1' }
paths:
  /pets/{petId}:
    get:
      operationId: get-pet
      parameters: [{ name: petId, in: path, required: true, schema: { type: string } }]
      responses:
        '200':
          description: a pet
          content:
            application/json:
              schema: { $ref: 'schemas.yaml#/Pet' }
`,
  '/specs/schemas.yaml': `Pet:
  type: object
  required: [id]
  properties:
    id: { type: string }
`,
};

let server: Server;
let base: string;
const served: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    served.push(req.url ?? '');
    const body = files[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/yaml' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a description served on 127.0.0.1 loads with its external $ref resolved', async () => {
  const { api } = await loadDescription(`${base}/specs/api.yaml`);
  const schema = (api as any).paths['/pets/{petId}'].get.responses['200'].content['application/json'].schema;
  expect(schema).toMatchObject({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } });
  expect(served).toContain('/specs/schemas.yaml');
});

test('a served description that is missing is a one-line contract error naming the URL', async () => {
  await expect(loadDescription(`${base}/specs/absent.yaml`)).rejects.toThrow(/absent\.yaml/);
});
