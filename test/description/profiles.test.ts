/**
 * The profile belongs to a platform: the Customer profile applies to the services it claims (listed, or by
 * x-platform), any other service gets the generic profile; the catalog counts only its own services; a
 * single-service contract takes --base-url.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { primaryService, withBaseUrl } from '../../src/runner/run.ts';
import { customerPack } from '../../src/packs/customer/index.ts';
import type { Contract } from '../../src/runner/model.ts';
import { coverage, loadCatalog, notDescribedResults } from '../../src/runner/description/catalog.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import { claims, GENERIC_PROFILE, loadProfiles, profileFor } from '../../src/runner/description/profiles.ts';
import { ROOT } from '../support/runs.ts';

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

test('the generic profile is the fallback by identity: a platform profile titled "Generic" is not taken for it', async () => {
  const file = join(dir, 'titled-generic.yaml');
  const { dump } = await import('js-yaml');
  await writeFile(file, dump({ ...(await loadProfile(PROFILE)), title: 'Generic', services: ['customer-service'], platform: undefined }, { skipInvalid: true }));
  const profiles = await loadProfiles(file, { services: [...customer.services, ...foreign.services] });
  expect(profiles['customer-service']!.statuses.length).toBeGreaterThan(0);
  // A service the map does not name gets the generic profile (no status table), not the one titled Generic.
  expect(profileFor(profiles, 'unknown-service').statuses).toEqual([]);
  expect(profileFor(profiles, 'unknown-service')).toBe(profiles['pet-store']);
});

test('the catalog counts only the operations of its own services', async () => {
  const catalog = await loadCatalog(join(ROOT, 'contract/catalog.yaml'));
  expect(coverage(catalog, customer, 0)).toMatchObject({ catalogTotal: 287, described: 15, notDescribed: 272 });
  expect(coverage(catalog, foreign, 0)).toEqual({ catalogTotal: 1, described: 1, tested: 0, notDescribed: 0 });
  expect(notDescribedResults(catalog, foreign)).toEqual([]);
  expect(notDescribedResults(catalog, customer).length).toBeGreaterThan(0);
});

test("--base-url names the one service of a single-service contract, else the pack's primary service, else the first", () => {
  expect(withBaseUrl({}, 'http://a', primaryService(foreign, []))).toEqual({ 'pet-store': 'http://a' });
  expect(withBaseUrl({}, 'http://a', primaryService(customer, [customerPack]))).toEqual({ 'customer-service': 'http://a' });
  expect(primaryService({ services: [{ id: 'b' }, { id: 'c' }] } as never, [])).toBe('b');
  // An explicit --server for the same service wins.
  expect(withBaseUrl({ 'pet-store': 'http://b' }, 'http://a', primaryService(foreign, []))).toEqual({ 'pet-store': 'http://b' });
});
