/**
 * The records a run creates are kept to the end (a later case's reproduction starts with the creates it used),
 * so what is kept of each create is its request, status and parsed body: not the body text or the headers; beyond
 * the first thousand, deflated.
 */
import { expect, test } from 'vitest';
import { CreatedRecords } from '../../src/runner/execute/chain.ts';
import type { Exchange } from '../../src/runner/model.ts';

const create = (id: string, body: string): Exchange => ({
  request: { method: 'POST', url: 'http://127.0.0.1:1/customer-service/things', headers: { 'content-type': 'application/json' }, body: '{"name":"a"}' },
  response: { status: 201, headers: { 'content-type': 'application/json', etag: '"1"' }, body, truncated: false, size: body.length, json: { id } },
  durationMs: 1,
});

test('a create is kept without its body text; the chain of a later case still starts with it and its undo', () => {
  const records = new CreatedRecords();
  const large = `{"id":"r1","pad":"${'x'.repeat(512 * 1024)}"}`;
  const first = create('r1', large);
  records.note(first, (id) => ({ method: 'DELETE', url: `http://127.0.0.1:1/customer-service/things/${id}` }));
  // Kept as a few hundred bytes of text, not the half-megabyte answer.
  const kept = (records as unknown as { byId: Map<string, { text?: string }> }).byId.get('r1');
  expect(kept?.text?.length).toBeLessThan(400);

  const read: Exchange = { request: { method: 'GET', url: 'http://127.0.0.1:1/customer-service/things/r1', headers: {} }, response: { status: 200, headers: {}, body: '{}', truncated: false, size: 2, json: {} }, durationMs: 1 };
  const chain = records.chain([read]);
  expect(chain).toEqual([
    { request: first.request, response: { status: 201, json: { id: 'r1' } }, undo: { method: 'DELETE', url: 'http://127.0.0.1:1/customer-service/things/r1' } },
    { request: read.request, response: { status: 200, json: {} } },
  ]);
  // The case that sent the create itself: its own exchange, not a copy before it, with the undo.
  expect(records.chain([first, read])).toEqual([
    { request: first.request, response: { status: 201, json: { id: 'r1' } }, undo: { method: 'DELETE', url: 'http://127.0.0.1:1/customer-service/things/r1' } },
    { request: read.request, response: { status: 200, json: {} } },
  ]);
});

test('beyond the first thousand records each is kept deflated, and read back the same', () => {
  const records = new CreatedRecords();
  const undo = (id: string) => ({ method: 'DELETE' as const, url: `http://127.0.0.1:1/customer-service/things/${id}` });
  for (let i = 0; i < 1_001; i++) records.note(create(`r${i}`, `{"id":"r${i}"}`), undo);
  const byId = (records as unknown as { byId: Map<string, { text?: string; packed?: string }> }).byId;
  expect(byId.get('r999')?.text).toBeDefined();
  const last = byId.get('r1000');
  expect(last?.text).toBeUndefined();
  expect(last?.packed?.length).toBeLessThan(JSON.stringify(create('r1000', '')).length / 2);
  const read: Exchange = { request: { method: 'GET', url: 'http://127.0.0.1:1/customer-service/things/r1000', headers: {} }, response: { status: 200, headers: {}, body: '{}', truncated: false, size: 2, json: {} }, durationMs: 1 };
  expect(records.chain([read])[0]).toEqual({ request: create('r1000', '').request, response: { status: 201, json: { id: 'r1000' } }, undo: undo('r1000') });
});
