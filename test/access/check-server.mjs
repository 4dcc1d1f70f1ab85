// Self-check of the access test server: `node test/access/check-server.mjs` prints `ok` or fails non-zero.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startAccessServer, TOKENS } from './server.mjs';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function withServer(options, run) {
  const server = await startAccessServer(options);
  try {
    const call = async (who, method, path, body, headers = {}) => {
      const h = { ...headers };
      if (who) h.authorization = `Bearer ${TOKENS[who] ?? who}`;
      let payload;
      if (body !== undefined) {
        payload = typeof body === 'string' ? body : JSON.stringify(body);
        if (!('content-type' in h)) h['content-type'] = 'application/json';
      }
      const res = await fetch(`${server.baseUrl}${path}`, { method, headers: h, body: payload });
      const text = await res.text();
      let json;
      if (text) json = JSON.parse(text);
      if (json !== undefined) assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      return { status: res.status, json, headers: res.headers };
    };
    await run(call);
  } finally {
    await server.close();
  }
}

const label = (options) => JSON.stringify(options);
const expectStatus = (res, status, what) => assert.equal(res.status, status, `${what}: ${res.status} ${JSON.stringify(res.json)}`);

// Alice's document, a comment on it, and how each identity gets on with it.
async function scenario(options) {
  const { fault, denial = 404 } = options;
  const otherStatus = (faultFor, okStatus) =>
    fault === faultFor ? okStatus : denial === 403 || fault === 'leak-403' ? 403 : 404;
  const unknownStatus = denial === 403 ? 403 : 404;
  await withServer(options, async (call) => {
    const created = await call('alice', 'POST', '/documents', { title: 'plan', body: 'secret', extra: 1 });
    expectStatus(created, 201, `${label(options)} create`);
    assert.match(created.json.id, UUID);
    assert.deepEqual(created.json, { id: created.json.id, title: 'plan', body: 'secret', owner: 'alice' });
    const id = created.json.id;
    const comment = await call('alice', 'POST', `/documents/${id}/comments`, { text: 'first' });
    expectStatus(comment, 201, 'alice comments');
    assert.deepEqual(comment.json, { id: comment.json.id, documentId: id, text: 'first', author: 'alice' });

    // the owner
    expectStatus(await call('alice', 'GET', `/documents/${id}`), 200, 'alice reads');
    const list = await call('alice', 'GET', '/documents');
    expectStatus(list, 200, 'alice lists');
    assert.equal(list.json.items.length, 1);
    const bobList = await call('bob', 'GET', '/documents');
    assert.deepEqual(bobList.json, { items: [] });
    const comments = await call('alice', 'GET', `/documents/${id}/comments`);
    assert.deepEqual(comments.json, { items: [comment.json] });

    // another identity
    const read = await call('bob', 'GET', `/documents/${id}`);
    expectStatus(read, otherStatus('read-other', 200), `${label(options)} bob reads`);
    if (read.status === 404) assert.deepEqual(read.json, { error: 'not-found' });
    if (read.status === 403) assert.deepEqual(read.json, { error: 'forbidden' });
    if (read.status === 200) assert.equal(read.json.owner, 'alice');
    expectStatus(await call('bob', 'GET', `/documents/${id}/comments`), otherStatus('never', 200), `${label(options)} bob lists comments`);
    const bobComment = await call('bob', 'POST', `/documents/${id}/comments`, { text: 'mine now' });
    expectStatus(bobComment, otherStatus('comment-other', 201), `${label(options)} bob comments`);
    if (bobComment.status === 201) assert.equal(bobComment.json.author, 'bob');
    const update = await call('bob', 'PUT', `/documents/${id}`, { title: 'taken' });
    expectStatus(update, otherStatus('update-other', 200), `${label(options)} bob updates`);
    if (update.status === 200) assert.deepEqual(update.json, { id, title: 'taken', body: '', owner: 'alice' });

    // unknown and malformed ids
    for (const path of [`/documents/${randomUUID()}`, '/documents/not-a-uuid', `/documents/${randomUUID()}/comments`, '/documents/%E0%A4%A/comments']) {
      const res = await call('alice', 'GET', path);
      expectStatus(res, unknownStatus, `${label(options)} GET ${path}`);
      assert.deepEqual(res.json, { error: unknownStatus === 403 ? 'forbidden' : 'not-found' });
    }

    // scopes
    const readerWrite = await call('reader', 'POST', '/documents', { title: 'reader' });
    expectStatus(readerWrite, fault === 'no-scope-write' ? 201 : 403, `${label(options)} reader creates`);
    if (readerWrite.status === 403) assert.deepEqual(readerWrite.json, { error: 'insufficient-scope' });
    if (readerWrite.status === 201) assert.equal(readerWrite.json.owner, 'reader');
    const readerPut = await call('reader', 'PUT', `/documents/${id}`, { title: 'reader' });
    expectStatus(readerPut, fault === 'no-scope-write' ? otherStatus('never', 200) : 403, `${label(options)} reader updates`);
    const readerDelete = await call('reader', 'DELETE', `/documents/${id}`);
    expectStatus(readerDelete, fault === 'no-scope-write' ? otherStatus('never', 204) : 403, `${label(options)} reader deletes`);
    // comments and tags keep their scope check even with no-scope-write
    expectStatus(await call('reader', 'POST', `/documents/${id}/comments`, { text: 'x' }), 403, 'reader comments');
    expectStatus(await call('reader', 'POST', '/tags', { name: 'x' }), 403, 'reader creates a tag');
    expectStatus(await call('reader', 'GET', `/documents/${id}`), otherStatus('read-other', 200), 'reader reads');
    expectStatus(await call('reader', 'GET', '/documents'), 200, 'reader lists');

    // deletion by another identity, then by the owner
    const del = await call('bob', 'DELETE', `/documents/${id}`);
    expectStatus(del, otherStatus('delete-other', 204), `${label(options)} bob deletes`);
    if (del.status === 204) {
      assert.equal(del.json, undefined);
      expectStatus(await call('alice', 'GET', `/documents/${id}`), unknownStatus, 'deleted document');
    } else {
      expectStatus(await call('alice', 'DELETE', `/documents/${id}`), 204, 'alice deletes');
      expectStatus(await call('alice', 'GET', `/documents/${id}`), unknownStatus, 'deleted document');
      expectStatus(await call('alice', 'GET', `/documents/${id}/comments`), unknownStatus, 'comments of a deleted document');
    }
  });
}

// Everything that does not depend on the fault: authentication, validation, media types, routes, tags.
async function basics() {
  await withServer({}, async (call) => {
    for (const [method, path, body] of [
      ['GET', '/documents'],
      ['POST', '/documents', { title: 't' }],
      ['GET', `/documents/${randomUUID()}`],
      ['PUT', `/documents/${randomUUID()}`, { title: 't' }],
      ['DELETE', `/documents/${randomUUID()}`],
      ['GET', `/documents/${randomUUID()}/comments`],
      ['POST', `/documents/${randomUUID()}/comments`, { text: 't' }],
      ['POST', '/tags', { name: 't' }],
      ['GET', `/tags/${randomUUID()}`],
      ['DELETE', `/tags/${randomUUID()}`],
    ]) {
      for (const who of [undefined, 'not-a-token']) {
        const res = await call(who, method, path, body);
        expectStatus(res, 401, `${method} ${path} as ${who}`);
        assert.deepEqual(res.json, { error: 'unauthorized' });
      }
    }

    const invalid = [
      [],
      'null',
      '"text"',
      {},
      { title: '' },
      { title: 5 },
      { title: 'x'.repeat(101) },
      { title: 'ok', body: 7 },
      { title: 'ok', body: null },
      { title: 'ok', body: 'x'.repeat(1001) },
      '{"title": ',
    ];
    for (const body of invalid) {
      const res = await call('alice', 'POST', '/documents', body);
      expectStatus(res, 400, `POST /documents ${JSON.stringify(body)}`);
      assert.equal(res.json.error, 'invalid');
      assert.equal(typeof res.json.message, 'string');
    }
    expectStatus(await call('alice', 'POST', '/documents', { title: 'x'.repeat(100), body: 'y'.repeat(1000) }), 201, 'longest');
    expectStatus(await call('alice', 'POST', '/documents', { title: '😀'.repeat(100) }), 201, 'code points');
    const noBody = await call('alice', 'POST', '/documents', { title: 'no body' });
    assert.equal(noBody.json.body, '');
    const wrongType = await call('alice', 'POST', '/documents', { title: 't' }, { 'content-type': 'text/plain' });
    expectStatus(wrongType, 415, 'text/plain');
    assert.deepEqual(wrongType.json, { error: 'unsupported-media-type' });
    expectStatus(await call('alice', 'POST', '/documents', undefined), 415, 'no body, no content type');
    expectStatus(await call('alice', 'POST', '/documents', { title: 't' }, { 'content-type': 'application/json; charset=utf-8' }), 201, 'charset');
    expectStatus(await call('reader', 'POST', '/documents', { title: 't' }, { 'content-type': 'text/plain' }), 403, 'scope before 415');

    const doc = noBody.json;
    expectStatus(await call('alice', 'PUT', `/documents/${doc.id}`, { body: 'no title' }), 400, 'PUT without title');
    expectStatus(await call('alice', 'PUT', `/documents/${doc.id}`, { title: 't' }, { 'content-type': 'text/plain' }), 415, 'PUT text/plain');
    const updated = await call('alice', 'PUT', `/documents/${doc.id}`, { title: 'new', body: 'b' });
    assert.deepEqual(updated.json, { id: doc.id, title: 'new', body: 'b', owner: 'alice' });
    for (const body of [{}, { text: '' }, { text: 'x'.repeat(501) }, { text: 1 }]) {
      expectStatus(await call('alice', 'POST', `/documents/${doc.id}/comments`, body), 400, `comment ${JSON.stringify(body)}`);
    }
    expectStatus(await call('alice', 'POST', `/documents/${doc.id}/comments`, { text: 'x'.repeat(500) }), 201, 'longest comment');

    // tags are shared
    const tag = await call('alice', 'POST', '/tags', { name: 'shared', extra: true });
    expectStatus(tag, 201, 'create tag');
    assert.deepEqual(tag.json, { id: tag.json.id, name: 'shared', createdBy: 'alice' });
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(51) }, { name: [] }]) {
      expectStatus(await call('alice', 'POST', '/tags', body), 400, `tag ${JSON.stringify(body)}`);
    }
    expectStatus(await call('alice', 'POST', '/tags', { name: 't' }, { 'content-type': 'text/plain' }), 415, 'tag text/plain');
    assert.deepEqual((await call('bob', 'GET', `/tags/${tag.json.id}`)).json, tag.json);
    assert.deepEqual((await call('reader', 'GET', `/tags/${tag.json.id}`)).json, tag.json);
    expectStatus(await call('reader', 'DELETE', `/tags/${tag.json.id}`), 403, 'reader deletes a tag');
    expectStatus(await call('bob', 'DELETE', `/tags/${tag.json.id}`), 204, 'bob deletes alice tag');
    for (const id of [tag.json.id, 'nope']) {
      const res = await call('bob', 'GET', `/tags/${id}`);
      expectStatus(res, 404, `gone tag ${id}`);
      assert.deepEqual(res.json, { error: 'not-found' });
      expectStatus(await call('bob', 'DELETE', `/tags/${id}`), 404, `delete gone tag ${id}`);
    }

    // routes and methods
    for (const path of ['/', '/nothing', '/documents/a/b', `/documents/${doc.id}/comments/x`, '/tags/a/b']) {
      const res = await call('alice', 'GET', path);
      expectStatus(res, 404, `route ${path}`);
      assert.deepEqual(res.json, { error: 'no-route' });
    }
    for (const [method, path, allow] of [
      ['DELETE', '/documents', 'GET, POST'],
      ['POST', `/documents/${doc.id}`, 'GET, PUT, DELETE'],
      ['PATCH', `/documents/${doc.id}`, 'GET, PUT, DELETE'],
      ['PUT', `/documents/${doc.id}/comments`, 'GET, POST'],
      ['GET', '/tags', 'POST'],
      ['PUT', `/tags/${doc.id}`, 'GET, DELETE'],
    ]) {
      const res = await call(undefined, method, path);
      expectStatus(res, 405, `${method} ${path}`);
      assert.equal(res.headers.get('allow'), allow);
    }
  });
}

await basics();
for (const options of [
  {},
  { denial: 403 },
  { fault: 'read-other' },
  { fault: 'update-other' },
  { fault: 'delete-other' },
  { fault: 'comment-other' },
  { fault: 'no-scope-write' },
  { fault: 'leak-403' },
  { fault: 'read-other', denial: 403 },
  { fault: 'no-scope-write', denial: 403 },
]) {
  await scenario(options);
}
console.log('ok');
