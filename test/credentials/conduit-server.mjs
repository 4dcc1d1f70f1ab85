// A blogging API of the RealWorld ("Conduit") shape for the credential tests: users register (POST /users) and log
// in (POST /users/login) for a JWT-like token that names them, sent as `Authorization: Token <jwt>`; every record
// in a one-key envelope ({"user": {...}}); the current user (GET, PUT /user) carries the caller's token, and a
// rename gives a new one (the old one names a user that is gone). Correct by default; `fault` makes one defect:
//   fault: 'feed-403'   GET /articles/feed answers 403 to a broken or missing token (it documents 401 only)
//   fault: 'feed-404'   GET /articles/feed answers 404 to a broken or missing token
//   fault: 'feed-422'   GET /articles/feed refuses every call with a valid token: 422 {"errors": {"body": ["feed is closed"]}}
// anyWord: true takes the token after any word (`Bearer <jwt>`, `Basic <jwt>`), as many backends read the header:
//   the contract shows the `Token` word in its scheme's description only, so that is lenient, not a defect.
//   fault: 'null-bio'   every user record answered (register, login, the current user) has bio null (the schema says string)
//   fault: 'echo-password'  the current user's record (GET, PUT /user) also shows the password it was given
// `refusal` is the status a correct server refuses credentials with: 401 (documented everywhere).
import { createServer } from 'node:http';
import { createHmac } from 'node:crypto';

const KEY = 'conduit-test-signing-key';
const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token naming the user: header.payload.signature, as a JWT is written. */
function tokenFor(user) {
  const head = b64({ alg: 'HS256', typ: 'JWT' });
  const body = b64({ username: user.username, v: user.version });
  const sig = createHmac('sha256', KEY).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

function userOf(users, header, anyWord) {
  const m = (anyWord ? /^\S+ ([\w-]+\.[\w-]+\.[\w-]+)$/ : /^Token ([\w-]+\.[\w-]+\.[\w-]+)$/).exec(header ?? '');
  if (!m) return undefined;
  const [head, body, sig] = m[1].split('.');
  if (createHmac('sha256', KEY).update(`${head}.${body}`).digest('base64url') !== sig) return undefined;
  let claims;
  try {
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const user = users.find((u) => u.username === claims.username);
  return user && user.version === claims.v ? user : undefined;
}

const viewOf = (user, fault) => ({ user: { email: user.email, token: tokenFor(user), username: user.username, bio: fault === 'null-bio' ? null : user.bio, image: user.image, ...(fault === 'echo-password' ? { password: user.password } : {}) } });
const errors = (...body) => ({ errors: { body } });

/** The fields of `{"<envelope>": {...}}` checked as strings; a message when the body is wrong. */
function fields(body, envelope, required, optional = []) {
  const inner = body && typeof body === 'object' && !Array.isArray(body) ? body[envelope] : undefined;
  if (!inner || typeof inner !== 'object' || Array.isArray(inner)) return [undefined, `${envelope} is required and must be an object`];
  for (const name of required) if (typeof inner[name] !== 'string' || inner[name] === '') return [undefined, `${name} can't be blank`];
  for (const name of optional) if (name in inner && typeof inner[name] !== 'string') return [undefined, `${name} must be a string`];
  return [inner, undefined];
}

export async function startConduitServer({ fault, refusal = 401, anyWord = false } = {}) {
  const users = [];
  const requests = { login: 0, register: 0, refused: 0 };
  const issued = new Set();
  const view = (user) => {
    const shown = viewOf(user, fault);
    issued.add(shown.user.token);
    return shown;
  };
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const reply = (status, value) => {
        res.writeHead(status, value === undefined ? {} : { 'content-type': 'application/json' });
        res.end(value === undefined ? undefined : JSON.stringify(value));
      };
      const url = new URL(req.url, 'http://localhost');
      const path = url.pathname.replace(/^\/api/, '');
      let body;
      if (text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          return reply(422, errors('the body is not JSON'));
        }
      }
      const caller = userOf(users, req.headers['authorization'], anyWord);
      const refuse = (status = refusal) => {
        requests.refused++;
        reply(status);
      };
      const query = (name) => url.searchParams.get(name);
      // offset: an integer of 0 or more; limit: 1 or more (as the contract's parameters say).
      const badInteger = ['offset', 'limit'].find((n) => query(n) !== null && (!/^-?\d+$/.test(query(n)) || Number(query(n)) < (n === 'limit' ? 1 : 0)));
      const route = `${req.method} ${path}`;
      if (route === 'POST /users') {
        const [user, problem] = fields(body, 'user', ['username', 'email', 'password']);
        if (problem) return reply(422, errors(problem));
        if (users.some((u) => u.email === user.email)) return reply(422, errors('email has already been taken'));
        if (users.some((u) => u.username === user.username)) return reply(422, errors('username has already been taken'));
        const made = { username: user.username, email: user.email, password: user.password, bio: '', image: '', version: 1 };
        users.push(made);
        requests.register++;
        return reply(201, view(made));
      }
      if (route === 'POST /users/login') {
        const [login, problem] = fields(body, 'user', ['email', 'password']);
        if (problem) return reply(422, errors(problem));
        const user = users.find((u) => u.email === login.email && u.password === login.password);
        if (!user) return reply(401);
        requests.login++;
        return reply(200, view(user));
      }
      if (route === 'GET /user') return caller ? reply(200, view(caller)) : refuse();
      if (route === 'PUT /user') {
        if (!caller) return refuse();
        const [change, problem] = fields(body, 'user', [], ['email', 'password', 'username', 'bio', 'image']);
        if (problem) return reply(422, errors(problem));
        if (change.username !== undefined && change.username !== caller.username && users.some((u) => u.username === change.username)) return reply(422, errors('username has already been taken'));
        if (change.email !== undefined && change.email !== caller.email && users.some((u) => u.email === change.email)) return reply(422, errors('email has already been taken'));
        Object.assign(caller, change);
        // A new name is a new token: the old one names a user that is gone.
        if (change.username !== undefined) caller.version++;
        return reply(200, view(caller));
      }
      if (route === 'GET /articles/feed') {
        if (!caller) return refuse(fault === 'feed-403' ? 403 : fault === 'feed-404' ? 404 : refusal);
        if (badInteger) return reply(422, errors(`${badInteger} must be an integer`));
        if (fault === 'feed-422') return reply(422, errors('feed is closed'));
        return reply(200, { articles: [], articlesCount: 0 });
      }
      if (route === 'GET /articles') {
        if (badInteger) return reply(422, errors(`${badInteger} must be an integer`));
        return reply(200, { articles: [], articlesCount: 0 });
      }
      if (route === 'GET /tags') return reply(200, { tags: ['welcome'] });
      return reply(404);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    users,
    requests,
    get issued() {
      return [...issued];
    },
    register: (user) => users.push({ bio: '', image: '', version: 1, ...user }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
