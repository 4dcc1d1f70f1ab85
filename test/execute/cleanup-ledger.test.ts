/**
 * The cleanup ledger keeps what the end of the run still has to delete or report: a record the run deleted
 * itself leaves it, and the records no id names are counted per operation and reason, not kept one by one.
 */
import { join } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { CleanupLedger } from '../../src/runner/execute/records/ledger.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { loadProfiles, profileFor, type Profiles } from '../../src/runner/description/profiles.ts';
import type { Contract, Exchange, Operation } from '../../src/runner/model.ts';
import { ROOT } from '../support/runs.ts';

const BASE = 'http://127.0.0.1:1/customer-service';
let contract: Contract;
let profiles: Profiles;

beforeAll(async () => {
  contract = await loadContract([join(ROOT, 'contract/customer-service.openapi.yaml')]);
  profiles = await loadProfiles('generic', contract);
});

const op = (id: string): Operation => contract.operations.find((o) => o.operationId === id)!;
const url = (o: Operation, params: Record<string, string>) => `${BASE}${o.path.replace(/\{([^}]+)\}/g, (_m, k: string) => params[k] ?? '')}`;
const ledger = () => new CleanupLedger(contract, (o) => profileFor(profiles, o.service), url);
const exchange = (method: Exchange['request']['method'], target: string, status: number, json?: unknown): Exchange => ({
  request: { method, url: target, headers: {} },
  response: { status, headers: {}, body: json === undefined ? '' : JSON.stringify(json), truncated: false, size: 0, ...(json !== undefined ? { json } : {}) },
  durationMs: 1,
});
/** What the ledger holds one by one (the records it would still delete or report). */
const held = (l: CleanupLedger) => (l as unknown as { records: Set<unknown> }).records.size;

test('a record the run deleted itself leaves the ledger; one still there is worked off at the end', () => {
  const l = ledger();
  const create = op('create-address-type');
  for (const id of ['a1', 'a2', 'a3']) l.note(create, exchange('POST', `${BASE}/address-types`, 200, { id }), {});
  expect(l.pending().map((r) => r.id)).toEqual(['a3', 'a2', 'a1']);
  l.note(op('delete-address-type'), exchange('DELETE', `${BASE}/address-types/a2`, 200), { id: 'a2' });
  expect(l.pending().map((r) => r.id)).toEqual(['a3', 'a1']);
  expect(held(l)).toBe(2);
  expect(l.pending()[0]?.undo).toMatchObject({ operation: { operationId: 'delete-address-type' }, pathParams: { id: 'a3' } });
  expect(l.size).toBe(3);
});

test('creates answered without an id are counted per operation and reason, with the first call as the example', () => {
  const l = ledger();
  const create = op('create-address-type');
  for (let i = 0; i < 500; i++) l.note(create, exchange('POST', `${BASE}/address-types?n=${i}`, 200, {}), {});
  l.note(create, exchange('POST', `${BASE}/address-types`, 200, { id: 'a1' }), {});
  const field = op('create-address-type-field');
  for (const parent of ['a1', 'a1', 'b7']) l.note(field, exchange('POST', `${BASE}/address-types/${parent}/fields`, 200, {}), { id: parent });
  // Nothing can delete them: they are not among the records to work off, and not held one by one.
  expect(l.pending().map((r) => r.id)).toEqual(['a1']);
  expect(held(l)).toBe(1);
  expect(l.unnamed().map((u) => ({ operationId: u.create.operationId, createUrl: u.createUrl, count: u.count, reason: u.reason }))).toEqual([
    { operationId: 'create-address-type', createUrl: `${BASE}/address-types?n=0`, count: 500, reason: 'the answer (200) named no id for {id} of DELETE /address-types/{id}' },
    { operationId: 'create-address-type-field', createUrl: `${BASE}/address-types/a1/fields`, count: 3, reason: 'the answer (200) named no id for {fieldId} of DELETE /address-types/{id}/fields/{fieldId}' },
  ]);
  expect(l.size).toBe(504);
});

test('a record names the older records its create named, by URL or body, so that it is deleted before them', () => {
  const l = ledger();
  const create = op('create-address-type');
  l.note(create, exchange('POST', `${BASE}/address-types`, 200, { id: 'a1' }), {});
  l.note(create, exchange('POST', `${BASE}/address-types`, 200, { id: 'a2' }), {});
  const field = op('create-address-type-field');
  l.note(field, exchange('POST', `${BASE}/address-types/a1/fields`, 200, { id: 'f1' }), { id: 'a1' });
  const byBody = { ...exchange('POST', `${BASE}/address-types`, 200, { id: 'a3' }), request: { method: 'POST' as const, url: `${BASE}/address-types`, headers: {}, body: '{"name":"x","copyOf":"a2","count":1}' } };
  l.note(create, byBody, {});
  l.note(create, exchange('POST', `${BASE}/address-types`, 200, { id: 'a4' }), {});
  const names = Object.fromEntries(l.pending().map((r) => [r.id, (r.names ?? []).map((n) => n.id)]));
  expect(names).toEqual({ a4: [], a3: ['a2'], f1: ['a1'], a2: [], a1: [] });
  // A record the run deleted is named by nothing created after it.
  l.note(op('delete-address-type'), exchange('DELETE', `${BASE}/address-types/a4`, 200), { id: 'a4' });
  const after = { ...exchange('POST', `${BASE}/address-types`, 200, { id: 'a5' }), request: { method: 'POST' as const, url: `${BASE}/address-types`, headers: {}, body: '{"copyOf":"a4"}' } };
  l.note(create, after, {});
  expect(l.pending()[0]).toMatchObject({ id: 'a5' });
  expect(l.pending()[0]?.names).toBeUndefined();
});

test("a collection's own records: those its create made under the same parent, newest first, each with its DELETE; deleted ones leave", () => {
  const l = ledger();
  const create = op('create-address-type-field');
  for (const [parent, id] of [['p1', 'f1'], ['p2', 'f2'], ['p1', 'f3']] as const) l.note(create, exchange('POST', `${BASE}/address-types/${parent}/fields`, 200, { id }), { id: parent });
  const own = (parent: string) => l.pendingOf(create, url(create, { id: parent }));
  expect(own('p1')).toEqual([
    { id: 'f3', undo: { operation: op('delete-address-type-field'), pathParams: { id: 'p1', fieldId: 'f3' } } },
    { id: 'f1', undo: { operation: op('delete-address-type-field'), pathParams: { id: 'p1', fieldId: 'f1' } } },
  ]);
  l.note(op('delete-address-type-field'), exchange('DELETE', `${BASE}/address-types/p1/fields/f3`, 200), { id: 'p1', fieldId: 'f3' });
  expect(own('p1').map((r) => r.id)).toEqual(['f1']);
  expect(own('p2').map((r) => r.id)).toEqual(['f2']);
  expect(l.pendingOf(op('create-address-type'), url(op('create-address-type'), {}))).toEqual([]);
});
