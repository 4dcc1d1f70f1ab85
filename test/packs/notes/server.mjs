// The notes API's reference deployment: correct by default; `fault` makes one known defect for the tests.
//   fault: 'list-500'   GET /notes answers 500
//   fault: 'no-auth'    GET /notes/{noteId} answers without checking the token
//   fault: 'bad-shape'  GET /notes/{noteId} answers the note without its text
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function startNotesServer({ token, fault } = {}) {
  const notes = new Map();
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
      const problem = (status, kind) => {
        // A 401 challenges, as HTTP says it must (RFC 9110 §15.5.2).
        if (status === 401) res.setHeader('www-authenticate', 'Bearer');
        return send(status, { problem: { kind } });
      };
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.replace(/^\/notes-api/, '');
      const authorized = req.headers.authorization === `Bearer ${token}`;
      const item = /^\/notes\/([^/]+)$/.exec(path);
      if (path === '/notes' && (req.method === 'GET' || req.method === 'POST')) {
        if (!authorized) return problem(401, 'UNAUTHENTICATED');
        if (req.method === 'GET') return fault === 'list-500' ? send(500, { problem: { kind: 'BOOM' } }) : send(200, [...notes.values()]);
        if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return problem(400, 'INVALID');
        let body;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return problem(400, 'INVALID');
        }
        const valid =
          body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).every((k) => k === 'text') &&
          typeof body.text === 'string' && body.text.length >= 1 && [...body.text].length <= 200;
        if (!valid) return problem(400, 'INVALID');
        const note = { id: randomUUID(), text: body.text };
        notes.set(note.id, note);
        return send(201, note);
      }
      if (item && (req.method === 'GET' || req.method === 'DELETE')) {
        if (!authorized && !(fault === 'no-auth' && req.method === 'GET')) return problem(401, 'UNAUTHENTICATED');
        const id = decodeLeniently(item[1]);
        if (!UUID.test(id)) return problem(400, 'INVALID');
        const note = notes.get(id);
        if (!note) return problem(404, 'NO_SUCH_NOTE');
        if (req.method === 'DELETE') {
          notes.delete(id);
          return send(204);
        }
        return send(200, fault === 'bad-shape' ? { id: note.id } : note);
      }
      if (path === '/notes' || item) {
        res.writeHead(405, { allow: item ? 'GET, DELETE' : 'GET, POST' });
        return res.end();
      }
      return problem(404, 'NO_SUCH_ROUTE');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    baseUrl: `${url}/notes-api`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
