/**
 * The records a run creates are kept to the end (a later case's reproduction starts with the creates it used),
 * so what is kept of each create is its request, status and parsed body, packed: not the body text or the headers.
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
  // Kept packed: a few dozen bytes, not the half-megabyte answer.
  const kept = (records as unknown as { byId: Map<string, string> }).byId.get('r1');
  expect(kept?.length).toBeLessThan(200);

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
