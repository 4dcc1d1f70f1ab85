/**
 * The profile belongs to a platform: the Customer profile applies to the services it claims (listed, or by
 * x-platform), any other service gets the generic profile; the catalog counts only its own services; a
 * single-service contract takes --base-url.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { singleServiceBaseUrl } from '../../src/runner/cli/run.ts';
import type { Contract } from '../../src/runner/model.ts';
import { coverage, loadCatalog, notDescribedResults } from '../../src/runner/description/catalog.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import { claims, GENERIC_PROFILE, loadProfiles } from '../../src/runner/description/profiles.ts';
import { ROOT } from '../engine/support.ts';

const PROFILE = join(ROOT, 'contract/profile.yaml');
const CUSTOMER = ['contract/customer-service.openapi.yaml', 'contract/foreign-trade-service.openapi.yaml'].map((f) => join(ROOT, f));
let dir = '';
let customer: Contract;
let foreign: Contract;
let sibling: Contract;

function description(serverUrl: string, info: Record<string, unknown> = {}): string {
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'Pets', version: '1', ...info },
    servers: [{ url: serverUrl }],
    paths: { '/pets': { get: { operationId: 'list-pets', responses: { '200': { description: 'ok' } } } } },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-profiles-'));
  await writeFile(join(dir, 'pets.json'), description('https://pets.example/pet-store'));
  await writeFile(join(dir, 'loans.json'), description('https://gw.example/loan-service', { 'x-platform': 'customer-platform' }));
  [customer, foreign, sibling] = await Promise.all([
    loadContract(CUSTOMER),
    loadContract([join(dir, 'pets.json')]),
    loadContract([join(dir, 'loans.json')]),
  ]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test('the Customer profile claims its platform services; a foreign service gets the generic profile', async () => {
  const profiles = await loadProfiles(PROFILE, { services: [...customer.services, ...foreign.services, ...sibling.services] });
  expect(Object.fromEntries(Object.entries(profiles).map(([id, p]) => [id, p.title]))).toEqual({
    'customer-service': 'Customer',
    'foreign-trade-service': 'Customer',
    'pet-store': 'Generic',
    'loan-service': 'Customer',
  });
  const generic = profiles['pet-store']!;
  expect(generic.errorEnvelope.appliesTo).toEqual([]);
  expect(generic.statuses).toEqual([]);
  expect(generic.sideEffects).toEqual([]);
  expect(generic.createShape.operations).toEqual([]);
});

test('--profile generic gives every service the generic profile; a profile naming no services applies to all', async () => {
  const all = await loadProfiles('generic', customer);
  expect(Object.values(all).map((p) => p.title)).toEqual(['Generic', 'Generic']);
  const custom = { ...(await loadProfile(PROFILE)), services: undefined, platform: undefined };
  expect(claims(custom, { id: 'pet-store' })).toBe(true);
  expect((await loadProfile(GENERIC_PROFILE)).title).toBe('Generic');
});

test('the catalog counts only the operations of its own services', async () => {
  const catalog = await loadCatalog(join(ROOT, 'contract/catalog.yaml'));
  expect(coverage(catalog, customer, 0)).toMatchObject({ catalogTotal: 287, described: 15, notDescribed: 272 });
  expect(coverage(catalog, foreign, 0)).toEqual({ catalogTotal: 1, described: 1, tested: 0, notDescribed: 0 });
  expect(notDescribedResults(catalog, foreign)).toEqual([]);
  expect(notDescribedResults(catalog, customer).length).toBeGreaterThan(0);
});

test('--base-url names the one service of a single-service contract, and the customer service otherwise', () => {
  expect(singleServiceBaseUrl({ 'customer-service': 'http://a' }, foreign)).toEqual({ 'pet-store': 'http://a' });
  expect(singleServiceBaseUrl({ 'customer-service': 'http://a' }, customer)).toEqual({ 'customer-service': 'http://a' });
  expect(singleServiceBaseUrl({ 'customer-service': 'http://a', 'pet-store': 'http://b' }, foreign)).toEqual({ 'customer-service': 'http://a', 'pet-store': 'http://b' });
});
