/**
 * A server of the blogging contract in ../shared/realworld/openapi.yml (the RealWorld "Conduit" API), for whole
 * runs: users who register and log in for a token sent as `Authorization: Token <jwt>`, articles named by a slug
 * made from their title (unique: a second article of the same title is refused with 422), comments under an
 * article, profiles named by username, favorites and follows, every record in an envelope (`{"article": {...}}`),
 * lists as `{"articles": [...], "articlesCount": n}`. The contract documents no 404 and no 403: a record that does
 * not exist, or one the caller may not change, is answered 422 with the documented error body; a missing or broken
 * credential 401 without a body.
 *
 * One user is registered before the run, with a token the run is given (PRESET_TOKEN): a run can hold a
 * credential without logging in. Register and login answer tokens of their own, so a run (or a test) that logs in
 * through the API works the same way.
 *
 * Usernames and e-mail addresses are unique where not empty. `strict` refuses a body that breaks the request schema (422); `lenient` takes what it can (a missing optional
 * field, a number where text is asked). A fault answers one operation that needs a made record wrongly: an updated
 * article without its tag list (`update-article`), a comment's delete answered 200 with the comment
 * (`delete-comment`), a follow answered `following: "yes"` (`follow`), a favorited article's count as text
 * (`favorite-count`).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { jsonServer, listening, ROOT } from './runs.ts';

export type RealWorldFault = 'update-article' | 'delete-comment' | 'follow' | 'favorite-count';
export interface RealWorldOptions {
  mode: 'strict' | 'lenient';
  /** Faults planted, each on one operation that needs a made record. */
  faults?: readonly RealWorldFault[];
}

/** The token of the user registered before the run (long enough to be searched for in reports). */
export const PRESET_TOKEN = 'jwt.preset-5b1e0c47d2a9f3';

/** The contract's file: $CONFORMANCE_SHARED, else ../shared beside the clone, else ../../shared (a worktree). */
export function realWorldContract(): string | undefined {
  const dirs = [process.env['CONFORMANCE_SHARED'], resolve(ROOT, '../shared'), resolve(ROOT, '../../shared')].filter((d): d is string => !!d);
  return dirs.map((d) => join(d, 'realworld/openapi.yml')).find((f) => existsSync(f));
}

interface User { id: number; username: string; email: string; password: string; bio: string; image: string; token: string }
interface Article { slug: string; title: string; description: string; body: string; tagList: string[]; createdAt: string; updatedAt: string; author: number; favoritedBy: Set<number> }
interface Comment { id: number; article: string; body: string; author: number; createdAt: string; updatedAt: string }

export interface RealWorldState {
  users: User[];
  articles: Map<string, Article>;
  comments: Comment[];
  follows: Set<string>;
  /** Every request: method, path and status. */
  seen: { method: string; path: string; status: number; error?: string }[];
}

const slugify = (title: string): string => title.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
const isText = (v: unknown): v is string => typeof v === 'string';

export async function startRealWorld(options: RealWorldOptions): Promise<{ url: string; state: RealWorldState; close: () => Promise<void> }> {
  const { mode } = options;
  const planted = new Set(options.faults ?? []);
  const now = () => new Date().toISOString();
  const state: RealWorldState = { users: [], articles: new Map(), comments: [], follows: new Set(), seen: [] };
  state.users.push({ id: 1, username: 'preset', email: 'preset@example.com', password: 'preset-password', bio: '', image: '', token: PRESET_TOKEN });
  let nextUser = 2;
  let nextComment = 1;
  let nextToken = 1;

  /** The slug of a title: its letters and digits, lowercase, joined by dashes; a title without any gets a number. */
  let untitled = 0;
  const slugOf = (title: string): string => slugify(title) || `untitled-${++untitled}`;
  const profile = (u: User, viewer?: User) => ({ username: u.username, bio: u.bio, image: u.image, following: viewer ? state.follows.has(`${viewer.id}>${u.id}`) : false });
  const userOf = (id: number) => state.users.find((u) => u.id === id)!;
  const article = (a: Article, viewer?: User) => ({
    slug: a.slug, title: a.title, description: a.description, body: a.body, tagList: a.tagList, createdAt: a.createdAt, updatedAt: a.updatedAt,
    favorited: viewer ? a.favoritedBy.has(viewer.id) : false,
    favoritesCount: planted.has('favorite-count') && a.favoritedBy.size > 0 ? String(a.favoritedBy.size) : a.favoritedBy.size,
    author: profile(userOf(a.author), viewer),
  });
  const comment = (c: Comment, viewer?: User) => ({ id: c.id, createdAt: c.createdAt, updatedAt: c.updatedAt, body: c.body, author: profile(userOf(c.author), viewer) });
  const userBody = (u: User) => ({ user: { email: u.email, token: u.token, username: u.username, bio: u.bio, image: u.image } });
  const error = (...messages: string[]) => ({ errors: { body: messages } });

  /** A text field: strict takes a string only; lenient takes a number or boolean as its text. */
  const text = (v: unknown): string | undefined => (isText(v) ? v : mode === 'lenient' && (typeof v === 'number' || typeof v === 'boolean') ? String(v) : undefined);
  const envelope = (body: string, key: string): Record<string, unknown> | undefined => {
    try {
      const parsed = JSON.parse(body) as unknown;
      const inner = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>)[key] : undefined;
      return typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? (inner as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const caller = (req: IncomingMessage): User | undefined | 'broken' => {
    const header = req.headers['authorization'];
    if (header === undefined) return undefined;
    const token = /^Token (\S+)$/.exec(header)?.[1];
    return state.users.find((u) => u.token === token) ?? 'broken';
  };
  const page = (list: Article[], url: URL, viewer?: User) => {
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const bad = !Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1;
    if (bad) return undefined;
    const articles = list.slice(offset, offset + limit).map((a) => {
      const { body: _body, ...rest } = article(a, viewer);
      return rest;
    });
    return { articles, articlesCount: list.length };
  };

  const server = jsonServer((req, raw, send) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    let path = url.pathname.replace(/^\/api/, '');
    const reply = (status: number, value?: unknown) => {
      const said = (value as { errors?: { body?: string[] } } | undefined)?.errors?.body?.[0];
      state.seen.push({ method, path, status, ...(said !== undefined ? { error: said } : {}) });
      send(status, value);
    };
    let seg: string[];
    try {
      seg = path.split('/').slice(1).map((s) => decodeURIComponent(s));
      if (seg.at(-1) === '' && seg.length > 1) seg.pop();
    } catch {
      return reply(422, error('the path is not percent-encoded text'));
    }
    const who = caller(req);
    const me = who === 'broken' ? undefined : who;
    /** The caller of an operation that needs one; undefined after answering 401. */
    const needMe = (): User | undefined => {
      if (me === undefined) reply(401);
      return me;
    };
    const shape = seg.map((s, i) => ((i === 1 && (seg[0] === 'profiles' || (seg[0] === 'articles' && s !== 'feed'))) || (i === 3 && seg[2] === 'comments') ? '{}' : s));
    const route = `${method} /${shape.join('/')}`;

    switch (route) {
      case 'POST /users/login': {
        const u = envelope(raw, 'user');
        const email = text(u?.['email']);
        const password = text(u?.['password']);
        if (email === undefined || password === undefined) return reply(422, error('email and password are required'));
        const found = state.users.find((x) => x.email === email && x.password === password);
        return found ? reply(200, userBody(found)) : reply(401);
      }
      case 'POST /users': {
        const u = envelope(raw, 'user');
        const [username, email, password] = [text(u?.['username']), text(u?.['email']), text(u?.['password'])];
        if (username === undefined || email === undefined || password === undefined) return reply(422, error('username, email and password are required'));
        if (username !== '' && state.users.some((x) => x.username === username)) return reply(422, error('username has already been taken'));
        if (email !== '' && state.users.some((x) => x.email === email)) return reply(422, error('email has already been taken'));
        const made: User = { id: nextUser++, username, email, password, bio: '', image: '', token: `jwt.made-${nextToken++}-${Math.random().toString(36).slice(2)}` };
        state.users.push(made);
        return reply(201, userBody(made));
      }
      case 'GET /user': {
        const m = needMe();
        return m && reply(200, userBody(m));
      }
      case 'PUT /user': {
        const m = needMe();
        if (!m) return;
        const u = envelope(raw, 'user');
        if (u === undefined) return reply(422, error('user is required'));
        const fields = ['email', 'password', 'username', 'bio', 'image'] as const;
        const values: Partial<Record<(typeof fields)[number], string>> = {};
        for (const f of fields) {
          if (u[f] === undefined || (u[f] === null && mode === 'lenient')) continue;
          const v = text(u[f]);
          if (v === undefined) return reply(422, error(`${f} must be a string`));
          values[f] = v;
        }
        if (values.username && state.users.some((x) => x !== m && x.username === values.username)) return reply(422, error('username has already been taken'));
        if (values.email && state.users.some((x) => x !== m && x.email === values.email)) return reply(422, error('email has already been taken'));
        Object.assign(m, values);
        return reply(200, userBody(m));
      }
      case 'GET /profiles/{}': {
        if (who === 'broken') return reply(401);
        const u = state.users.find((x) => x.username === seg[1]);
        return u ? reply(200, { profile: profile(u, me) }) : reply(422, error('profile not found'));
      }
      case 'POST /profiles/{}/follow':
      case 'DELETE /profiles/{}/follow': {
        const m = needMe();
        if (!m) return;
        const u = state.users.find((x) => x.username === seg[1]);
        if (!u) return reply(422, error('profile not found'));
        if (method === 'POST') state.follows.add(`${m.id}>${u.id}`);
        else state.follows.delete(`${m.id}>${u.id}`);
        const answered = profile(u, m);
        return reply(200, { profile: planted.has('follow') && method === 'POST' ? { ...answered, following: 'yes' } : answered });
      }
      case 'GET /articles/feed': {
        const m = needMe();
        if (!m) return;
        const list = [...state.articles.values()].filter((a) => state.follows.has(`${m.id}>${a.author}`)).reverse();
        const p = page(list, url, m);
        return p ? reply(200, p) : reply(422, error('invalid offset or limit'));
      }
      case 'GET /articles': {
        if (who === 'broken') return reply(401);
        const [tag, author, favorited] = [url.searchParams.get('tag'), url.searchParams.get('author'), url.searchParams.get('favorited')];
        const list = [...state.articles.values()]
          .filter((a) => (tag === null || a.tagList.includes(tag)) && (author === null || userOf(a.author).username === author))
          .filter((a) => favorited === null || [...a.favoritedBy].some((id) => userOf(id).username === favorited))
          .reverse();
        const p = page(list, url, me);
        return p ? reply(200, p) : reply(422, error('invalid offset or limit'));
      }
      case 'POST /articles': {
        const m = needMe();
        if (!m) return;
        const a = envelope(raw, 'article');
        const [title, description, body] = [text(a?.['title']), a?.['description'] === undefined && mode === 'lenient' ? '' : text(a?.['description']), text(a?.['body'])];
        const tags = a?.['tagList'];
        const tagList = tags === undefined || (tags === null && mode === 'lenient') ? [] : Array.isArray(tags) && tags.every(isText) ? tags : undefined;
        if (title === undefined || description === undefined || body === undefined || tagList === undefined) return reply(422, error('title, description and body are required'));
        const slug = slugOf(title);
        if (state.articles.has(slug)) return reply(422, error('slug has already been taken'));
        const at = now();
        const made: Article = { slug, title, description, body, tagList, createdAt: at, updatedAt: at, author: m.id, favoritedBy: new Set() };
        state.articles.set(slug, made);
        return reply(201, { article: article(made, m) });
      }
      case 'GET /articles/{}': {
        const a = state.articles.get(seg[1]!);
        return a ? reply(200, { article: article(a, me) }) : reply(422, error('article not found'));
      }
      case 'PUT /articles/{}': {
        const m = needMe();
        if (!m) return;
        const a = state.articles.get(seg[1]!);
        if (!a || a.author !== m.id) return reply(422, error('article not found'));
        const changes = envelope(raw, 'article');
        if (changes === undefined) return reply(422, error('article is required'));
        const values: Partial<Record<'title' | 'description' | 'body', string>> = {};
        for (const f of ['title', 'description', 'body'] as const) {
          if (changes[f] === undefined) continue;
          const v = text(changes[f]);
          if (v === undefined) return reply(422, error(`${f} must be a string`));
          values[f] = v;
        }
        if (values.title !== undefined) {
          const slug = slugOf(values.title);
          if (slug !== a.slug && state.articles.has(slug)) return reply(422, error('slug has already been taken'));
          state.articles.delete(a.slug);
          for (const c of state.comments) if (c.article === a.slug) c.article = slug;
          a.slug = slug;
          state.articles.set(slug, a);
        }
        Object.assign(a, values, { updatedAt: now() });
        const answered = article(a, m);
        return reply(200, { article: planted.has('update-article') ? { ...answered, tagList: null } : answered });
      }
      case 'DELETE /articles/{}': {
        const m = needMe();
        if (!m) return;
        const a = state.articles.get(seg[1]!);
        if (!a || a.author !== m.id) return reply(422, error('article not found'));
        state.articles.delete(a.slug);
        state.comments = state.comments.filter((c) => c.article !== a.slug);
        return reply(204);
      }
      case 'GET /articles/{}/comments': {
        if (who === 'broken') return reply(401);
        const a = state.articles.get(seg[1]!);
        return a ? reply(200, { comments: state.comments.filter((c) => c.article === a.slug).map((c) => comment(c, me)) }) : reply(422, error('article not found'));
      }
      case 'POST /articles/{}/comments': {
        const m = needMe();
        if (!m) return;
        const a = state.articles.get(seg[1]!);
        if (!a) return reply(422, error('article not found'));
        const body = text(envelope(raw, 'comment')?.['body']);
        if (body === undefined) return reply(422, error('body is required'));
        const at = now();
        const made: Comment = { id: nextComment++, article: a.slug, body, author: m.id, createdAt: at, updatedAt: at };
        state.comments.push(made);
        return reply(200, { comment: comment(made, m) });
      }
      case 'DELETE /articles/{}/comments/{}': {
        const m = needMe();
        if (!m) return;
        const id = Number(seg[3]);
        const c = state.comments.find((x) => x.article === seg[1] && x.id === id);
        if (!/^-?\d+$/.test(seg[3]!) || !c || c.author !== m.id) return reply(422, error('comment not found'));
        state.comments = state.comments.filter((x) => x !== c);
        return planted.has('delete-comment') ? reply(200, { comment: comment(c, m) }) : reply(204);
      }
      case 'POST /articles/{}/favorite':
      case 'DELETE /articles/{}/favorite': {
        const m = needMe();
        if (!m) return;
        const a = state.articles.get(seg[1]!);
        if (!a) return reply(422, error('article not found'));
        if (method === 'POST') a.favoritedBy.add(m.id);
        else a.favoritedBy.delete(m.id);
        return reply(200, { article: article(a, m) });
      }
      case 'GET /tags':
        return reply(200, { tags: [...new Set([...state.articles.values()].flatMap((a) => a.tagList))] });
      default:
        return reply(404, error('no such route'));
    }
  });
  const { url, close } = await listening(server, '/api');
  return { url, state, close };
}
