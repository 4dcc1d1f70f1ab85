/**
 * Bearer tokens from a command (--token-command): run once at the start and again when the service rejects
 * the current token mid-run or shortly before it expires. The command prints the token, or JSON
 * `{"access_token"|"token": "...", "expires_in": seconds}`; a JWT's `exp` claim also gives the expiry.
 */
import { execFile } from 'node:child_process';

export interface IssuedToken {
  token: string;
  /** Epoch ms after which the token is no longer valid, when known. */
  expiresAt?: number;
}

export class TokenCommandError extends Error {}

/** Runs the command with /bin/sh and reads the token it prints. */
export function runTokenCommand(command: string, timeoutMs = 30_000): Promise<IssuedToken> {
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', ['-c', command], { timeout: timeoutMs, maxBuffer: 1024 * 1024, env: process.env }, (error, stdout) => {
      if (error) {
        const why = error.killed ? `no answer within ${timeoutMs} ms` : `exit code ${String(error.code ?? error.signal)}`;
        reject(new TokenCommandError(`--token-command failed (${why})`));
        return;
      }
      try {
        resolve(parseIssued(stdout, Date.now()));
      } catch (e) {
        reject(e);
      }
    });
  });
}

export function parseIssued(stdout: string, now: number): IssuedToken {
  const text = stdout.trim();
  if (text === '') throw new TokenCommandError('--token-command printed no token');
  if (text.startsWith('{')) {
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new TokenCommandError('--token-command printed JSON that does not parse');
    }
    const token = doc['access_token'] ?? doc['token'];
    if (typeof token !== 'string' || token === '') throw new TokenCommandError('--token-command printed JSON without "access_token" or "token"');
    const expiresIn = Number(doc['expires_in']);
    return Number.isFinite(expiresIn) && expiresIn > 0 ? { token, expiresAt: now + expiresIn * 1000 } : withJwtExpiry(token);
  }
  const token = text.split(/\r?\n/)[0]!.trim();
  return withJwtExpiry(token);
}

function withJwtExpiry(token: string): IssuedToken {
  const parts = token.split('.');
  if (parts.length === 3) {
    try {
      const exp = (JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
      if (typeof exp === 'number') return { token, expiresAt: exp * 1000 };
    } catch {
      // not a JWT
    }
  }
  return { token };
}

/** The current token of a run; refreshes are single-flight so concurrent 401s run the command once. */
export class TokenSource {
  private issued: IssuedToken;
  private issuedAt = Date.now();
  private pending: Promise<string> | undefined;

  constructor(
    initial: IssuedToken,
    private readonly command: string | undefined,
    private readonly onToken: (token: string) => void,
  ) {
    this.issued = initial;
    onToken(initial.token);
  }

  get current(): string {
    return this.issued.token;
  }

  get refreshable(): boolean {
    return this.command !== undefined;
  }

  /** True when the token expires within a fifth of its lifetime (at most 30 s). */
  expiringSoon(now = Date.now()): boolean {
    if (!this.command || this.issued.expiresAt === undefined) return false;
    const margin = Math.min(30_000, Math.max(0, (this.issued.expiresAt - this.issuedAt) / 5));
    return now >= this.issued.expiresAt - margin;
  }

  /** The token an answer of the run's own gave the caller in place of the current one (its write renewed it). */
  replace(token: string): void {
    if (token === '' || token === this.issued.token) return;
    this.issued = withJwtExpiry(token);
    this.issuedAt = Date.now();
    this.onToken(token);
  }

  /** A fresh token instead of `rejected` (the current one when another caller already replaced it). */
  refresh(rejected: string): Promise<string> {
    if (!this.command) return Promise.resolve(this.current);
    if (this.issued.token !== rejected) return this.pending ?? Promise.resolve(this.current);
    this.pending ??= runTokenCommand(this.command)
      .then((issued) => {
        this.issued = issued;
        this.issuedAt = Date.now();
        this.onToken(issued.token);
        return issued.token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
