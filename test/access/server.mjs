// A multi-user API for the access checks (object-level authorization between identities, function-level
// authorization by OAuth2 scope). Correct by default; `fault` makes one known defect for the tests (a list of them
// makes each, for defects on operations that cannot affect each other).
//   fault: 'read-other'      GET /documents/{id} serves another identity's document
//   fault: 'update-other'    PUT /documents/{id} lets another identity update the document
//   fault: 'delete-other'    DELETE /documents/{id} lets another identity delete the document
//   fault: 'comment-other'   POST /documents/{id}/comments lets another identity comment on the document
//   fault: 'no-scope-write'  POST /documents, PUT and DELETE /documents/{id} skip the documents:write scope check
//   fault: 'leak-403'        another identity's document answers 403 while an unknown one answers 404
// `denial` is how a correct server refuses another identity's document: 404 (default) or 403. With 403 an unknown
// document is refused with 403 as well, so the status reveals nothing.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_TYPE = /^application\/json\s*(;|$)/i;

export const TOKENS = { alice: 'access-alice-7f3a91c2', bob: 'access-bob-2d8e44b0', reader: 'access-reader-9c1f05aa' };
export const SCOPES = {
  alice: ['documents:read', 'documents:write'],
  bob: ['documents:read', 'documents:write'],
  reader: ['documents:read'],
};

const READ = 'documents:read';
const WRITE = 'documents:write';

// The routes: the methods each path answers, with the scope each method needs.
const ROUTES = [
  { name: 'documents', pattern: /^\/documents$/, methods: { GET: READ, POST: WRITE } },
  { name: 'document', pattern: /^\/documents\/([^/]+)$/, methods: { GET: READ, PUT: WRITE, DELETE: WRITE } },
  { name: 'comments', pattern: /^\/documents\/([^/]+)\/comments$/, methods: { GET: READ, POST: WRITE } },
  { name: 'tags', pattern: /^\/tags$/, methods: { POST: WRITE } },
  { name: 'tag', pattern: /^\/tags\/([^/]+)$/, methods: { GET: READ, DELETE: WRITE } },
];

const length = (text) => [...text].length; // code points, as JSON Schema counts them

// Checks one string field; answers a message when it is wrong.
function checkString(body, field, { required, min = 0, max }) {
  if (!(field in body)) return required ? `${field} is required` : undefined;
  const value = body[field];
  if (typeof value !== 'string') return `${field} must be a string`;
  if (length(value) < min) return `${field} must be at least ${min} characters`;
  if (length(value) > max) return `${field} must be at most ${max} characters`;
  return undefined;
}

function checkFields(body, fields) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'the body must be a JSON object';
  for (const [field, rule] of Object.entries(fields)) {
    const message = checkString(body, field, rule);
    if (message) return message;
  }
  return undefined;
}

const DOCUMENT_FIELDS = { title: { required: true, min: 1, max: 100 }, body: { required: false, max: 1000 } };
const COMMENT_FIELDS = { text: { required: true, min: 1, max: 500 } };
const TAG_FIELDS = { name: { required: true, min: 1, max: 50 } };

export async function startAccessServer({ fault, denial = 404 } = {}) {
  const faults = [fault ?? []].flat();
  const has = (name) => faults.includes(name);
  if (denial !== 404 && denial !== 403) throw new Error(`denial must be 404 or 403, not ${denial}`);
  const documents = new Map(); // id → { id, title, body, owner }
  const comments = new Map(); // document id → [{ id, documentId, text, author }]
  const tags = new Map(); // id → { id, name, createdBy }
  const callers = new Map(Object.entries(TOKENS).map(([name, token]) => [token, name]));

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (status, body) => {
        if (body === undefined) {
          res.writeHead(status);
          return res.end();
        }
        const text = JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(text);
      };
      const error = (status, kind, message) => send(status, message === undefined ? { error: kind } : { error: kind, message });
      const notFound = () => error(404, 'not-found');
      const forbidden = () => error(403, 'forbidden');

      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      let route;
      let match;
      for (const candidate of ROUTES) {
        match = candidate.pattern.exec(path);
        if (match) {
          route = candidate;
          break;
        }
      }
      if (!route) return error(404, 'no-route');
      const method = req.method ?? 'GET';
      if (!(method in route.methods)) {
        res.writeHead(405, { allow: Object.keys(route.methods).join(', ') });
        return res.end();
      }

      // Authentication, then the scope the operation needs, before anything else.
      const credentials = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      const caller = credentials ? callers.get(credentials[1]) : undefined;
      if (!caller) {
        res.setHeader('www-authenticate', 'Bearer');
        return error(401, 'unauthorized');
      }
      const scope = route.methods[method];
      const documentWrite = route.name === 'documents' ? method === 'POST' : route.name === 'document' && method !== 'GET';
      const skipScope = has('no-scope-write') && documentWrite;
      if (!skipScope && !SCOPES[caller].includes(scope)) return error(403, 'insufficient-scope');

      // The JSON body of an operation that takes one; answers undefined after sending 415 or 400.
      const readBody = (fields) => {
        if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) {
          error(415, 'unsupported-media-type');
          return undefined;
        }
        let body;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          error(400, 'invalid', 'the body is not valid JSON');
          return undefined;
        }
        const message = checkFields(body, fields);
        if (message) {
          error(400, 'invalid', message);
          return undefined;
        }
        return body;
      };

      // The id in the path, or undefined when it is not a UUID (then it names no record).
      const pathId = () => {
        let id;
        try {
          id = decodeURIComponent(match[1]);
        } catch {
          return undefined;
        }
        return UUID.test(id) ? id.toLowerCase() : undefined;
      };

      // The document the path names, when the caller may reach it; otherwise sends the refusal and answers undefined.
      // `allowOther` is the fault that lets another identity through for this operation.
      const ownDocument = (allowOther) => {
        const id = pathId();
        const doc = id === undefined ? undefined : documents.get(id);
        if (!doc) {
          if (denial === 403) forbidden();
          else notFound();
          return undefined;
        }
        if (doc.owner !== caller && !allowOther) {
          if (denial === 403 || has('leak-403')) forbidden();
          else notFound();
          return undefined;
        }
        return doc;
      };

      if (route.name === 'documents') {
        if (method === 'GET') return send(200, { items: [...documents.values()].filter((d) => d.owner === caller) });
        const body = readBody(DOCUMENT_FIELDS);
        if (!body) return undefined;
        const doc = { id: randomUUID(), title: body.title, body: body.body ?? '', owner: caller };
        documents.set(doc.id, doc);
        comments.set(doc.id, []);
        return send(201, doc);
      }

      if (route.name === 'document') {
        if (method === 'GET') {
          const doc = ownDocument(has('read-other'));
          return doc && send(200, doc);
        }
        if (method === 'PUT') {
          const doc = ownDocument(has('update-other'));
          if (!doc) return undefined;
          const body = readBody(DOCUMENT_FIELDS);
          if (!body) return undefined;
          doc.title = body.title;
          doc.body = body.body ?? '';
          return send(200, doc);
        }
        const doc = ownDocument(has('delete-other'));
        if (!doc) return undefined;
        documents.delete(doc.id);
        comments.delete(doc.id);
        return send(204);
      }

      if (route.name === 'comments') {
        if (method === 'GET') {
          const doc = ownDocument(false);
          return doc && send(200, { items: comments.get(doc.id) ?? [] });
        }
        const doc = ownDocument(has('comment-other'));
        if (!doc) return undefined;
        const body = readBody(COMMENT_FIELDS);
        if (!body) return undefined;
        const comment = { id: randomUUID(), documentId: doc.id, text: body.text, author: caller };
        comments.get(doc.id).push(comment);
        return send(201, comment);
      }

      if (route.name === 'tags') {
        const body = readBody(TAG_FIELDS);
        if (!body) return undefined;
        const tag = { id: randomUUID(), name: body.name, createdBy: caller };
        tags.set(tag.id, tag);
        return send(201, tag);
      }

      // route.name === 'tag': shared, any caller with the scope may read or delete any tag.
      const id = pathId();
      const tag = id === undefined ? undefined : tags.get(id);
      if (!tag) return notFound();
      if (method === 'DELETE') {
        tags.delete(tag.id);
        return send(204);
      }
      return send(200, tag);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${server.address().port}`;
  return {
    baseUrl,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
