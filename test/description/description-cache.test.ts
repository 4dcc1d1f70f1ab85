/**
 * An unchanged local description is read back from the cache as it was loaded; a changed byte in the description
 * or in any file it refers to is a miss, so a run never works from a stale contract; an invalid description is never
 * remembered; what a cache hit loads is what a fresh load gives.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cachedDescription } from '../../src/runner/description/description-cache.ts';
import { contractHash } from '../../src/runner/report/run-identity.ts';
import { loadContract, loadDescription } from '../../src/runner/description/load.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-description-cache-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const api = (title: string) => `openapi: 3.0.3
info: { title: ${title}, version: '1' }
servers: [{ url: http://localhost/pets }]
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
`;
const schemas = (idType: string) => `Pet:
  type: object
  required: [id]
  properties:
    id: { type: ${idType} }
    parent: { $ref: '#/Pet' }
`;

describe('description cache', () => {
  test('an unchanged description is read back; a change in a file it refers to is a miss and loads the new content', async () => {
    const file = join(dir, 'pets.openapi.yaml');
    await writeFile(file, api('Pets'));
    await writeFile(join(dir, 'schemas.yaml'), schemas('string'));
    const fresh = await loadDescription(file);
    const hit = await cachedDescription(file);
    expect(hit?.bundled).toEqual(fresh.bundled);
    const again = await loadDescription(file);
    expect(again.bundled).toEqual(fresh.bundled);
    expect(again.api).toEqual(fresh.api);

    // One byte changed in the referred file: the cache does not vouch for the old tree.
    await writeFile(join(dir, 'schemas.yaml'), schemas('integer'));
    expect(await cachedDescription(file)).toBeUndefined();
    const changed = await loadContract([file]);
    const schema = changed.operations[0]!.responses[0]!.schema as { properties: { id: { type: string } } };
    expect(schema.properties.id.type).toBe('integer');
    expect((await cachedDescription(file))?.bundled).toBeDefined();

    await writeFile(file, api('Pets again'));
    expect(await cachedDescription(file)).toBeUndefined();
    expect((await loadContract([file])).services[0]!.title).toBe('Pets again');
  });

  test('an invalid description is never remembered', async () => {
    const file = join(dir, 'broken.openapi.yaml');
    await writeFile(file, 'openapi: 3.0.3\ninfo: 42\npaths: {}\n');
    await expect(loadDescription(file)).rejects.toThrow(/broken\.openapi\.yaml/);
    expect(await cachedDescription(file)).toBeUndefined();
  });

  test('a cache hit loads the same contract as a fresh load, down to shared and recursive schemas (same contract hash)', async () => {
    for (const name of ['customer-service', 'foreign-trade-service']) {
      const file = join(dir, `${name}.openapi.yaml`);
      await copyFile(join(import.meta.dirname, `../../contract/${name}.openapi.yaml`), file);
      const fresh = await loadContract([file]);
      expect(await cachedDescription(file)).toBeDefined();
      const cached = await loadContract([file]);
      expect(cached).toEqual(fresh);
      expect(contractHash(cached)).toBe(contractHash(fresh));
    }
    // Recursive: the cached graph has its cycle, as the fresh one.
    const pets = await loadContract([join(dir, 'pets.openapi.yaml')]);
    const pet = pets.operations[0]!.responses[0]!.schema as { properties: { parent: unknown } };
    expect(pet.properties.parent).toBe(pet);
  });
});
