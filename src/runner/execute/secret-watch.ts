/**
 * A secret seen anywhere: a secret the run obtains out of band (a one-time password read from the OTP source) is
 * looked for in every answer of the run, not only in its own case's. The case that read it judges its own answers
 * as they come (checks/secret-not-exposed.ts) and redacts them; another case's answer may carry it too (a user
 * record that shows a pending one-time password), judged before or after the secret was read depending on the
 * order the cases ran in. So the answers of every case are kept (their header values and bodies, as the case
 * recorded them) and searched once, at the end, for every secret the run obtained: the verdict does not depend on
 * order at any concurrency. Only where the run can obtain such a secret (an OTP source), and up to a bound. A run
 * that writes reports keeps them on disk beside its case spool (a line per case), not in memory: at 2,770 operations
 * they are hundreds of MiB of answers.
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { carriesSecret } from '../checks/secret-not-exposed.ts';
import type { CaseResult, Finding, HttpMethod, Operation, RecordedRequest } from '../model.ts';
import { toCurl } from '../report/curl.ts';
import { redactFlowSecrets, SECRET_PLACEHOLDER } from './flow-secrets.ts';

/** Characters of answers kept for the search at the end; past them, answers are no longer kept (said in a note). */
export const WATCH_CHARS = 64 * 1024 * 1024;

interface KeptAnswer {
  request: RecordedRequest;
  status: number;
  /** Its header values and body, searched apart. */
  parts: string[];
}

/** A case's answer found carrying a secret: where, and the finding it gets. */
export interface Exposure {
  operationId: string;
  index: number;
  finding: Finding;
}

/** A case's kept answers, as a line of the watch's file. */
interface KeptCase {
  operationId: string;
  index: number;
  answers: KeptAnswer[];
}

/** About this many characters of lines are written to the file at once. */
const WATCH_BATCH = 256 * 1024;
/** The file is read back in chunks of this many bytes. */
const READ_CHUNK = 4 * 1024 * 1024;

export class SecretWatch {
  private readonly kept: KeptCase[] = [];
  private chars = 0;
  /** Answers no longer kept, for the bound. */
  skipped = 0;
  /** With a directory: the answers go to a file there, not to memory (a large run keeps hundreds of MiB of them). */
  private readonly file: string | undefined;
  private fd: number | undefined;
  private pending: string[] = [];
  private pendingChars = 0;

  constructor(
    private readonly limit = WATCH_CHARS,
    dir?: string,
  ) {
    this.file = dir === undefined ? undefined : join(dir, `.answers-${process.pid}.ndjson`);
  }

  /** Keeps the answers of a case as it finished (its own flow secrets already redacted). */
  keep(operationId: string, index: number, result: CaseResult): void {
    const answers: KeptAnswer[] = [];
    for (const e of result.exchanges) {
      if (!e.response) continue;
      const parts = [...Object.values(e.response.headers), e.response.body];
      const size = parts.reduce((n, p) => n + p.length, 0);
      if (this.chars + size > this.limit) {
        this.skipped++;
        continue;
      }
      this.chars += size;
      answers.push({ request: e.request, status: e.response.status, parts });
    }
    if (answers.length === 0) return;
    if (this.file === undefined) return void this.kept.push({ operationId, index, answers });
    const line = JSON.stringify({ operationId, index, answers } satisfies KeptCase);
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars >= WATCH_BATCH) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0 || this.file === undefined) return;
    mkdirSync(dirname(this.file), { recursive: true });
    this.fd ??= openSync(this.file, 'w+');
    writeSync(this.fd, `${this.pending.join('\n')}\n`);
    this.pending = [];
    this.pendingChars = 0;
  }

  /** The kept cases, from memory or read back from the file a chunk at a time. */
  private *cases(): Generator<KeptCase> {
    yield* this.kept;
    this.flush();
    if (this.fd === undefined) return;
    const buffer = Buffer.alloc(READ_CHUNK);
    let rest = '';
    let at = 0;
    for (let n = readSync(this.fd, buffer, 0, READ_CHUNK, at); n > 0; n = readSync(this.fd, buffer, 0, READ_CHUNK, at)) {
      at += n;
      const lines = (rest + buffer.toString('utf8', 0, n)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line !== '') yield JSON.parse(line) as KeptCase;
    }
  }

  /** Every kept answer that carries one of the secrets: one finding per case (its first such answer). */
  exposures(secrets: readonly string[], operation: (operationId: string) => Operation | undefined): Exposure[] {
    const live = secrets.filter((s) => s.length >= 4);
    const out: Exposure[] = [];
    if (live.length > 0) {
      for (const { operationId, index, answers } of this.cases()) {
        const op = operation(operationId);
        const shown = answers.find((a) => a.parts.some((part) => live.some((s) => carriesSecret(part, s))));
        if (shown && op) out.push({ operationId, index, finding: exposureFinding(op, operationId, shown, live) });
      }
    }
    this.close();
    return out;
  }

  /** Lets go of what was kept (the file removed). */
  close(): void {
    this.kept.length = 0;
    this.pending = [];
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.file !== undefined) rmSync(this.file, { force: true });
  }
}

function exposureFinding(op: Operation, operationId: string, shown: KeptAnswer, live: readonly string[]): Finding {
  const where = `${shown.request.method} ${new URL(shown.request.url).pathname}`;
  const hide = (text: string) => live.reduce((t, s) => t.split(s).join(SECRET_PLACEHOLDER), text);
  return {
    check: 'secret-not-exposed',
    severity: 'error',
    operationId,
    method: op.method as HttpMethod,
    path: op.path,
    message: `The response to ${where} (${shown.status}) carries a one-time password the run obtained out of band for another operation's flow.`,
    expected: 'no secret the run obtained in any response',
    actual: 'the secret (redacted)',
    specLocation: `${op.specFile}#${op.pointer}`,
    request: { method: shown.request.method as HttpMethod, url: hide(shown.request.url), status: shown.status },
    curl: hide(toCurl(shown.request)),
  };
}

/** The case with the exposure's finding (failed, the check failed) and the secrets redacted from its exchanges. */
export function withExposure(c: CaseResult, finding: Finding, secrets: readonly string[]): CaseResult {
  const exchanges = c.exchanges.map((e) => ({ ...e, request: { ...e.request }, ...(e.response ? { response: { ...e.response, headers: { ...e.response.headers } } } : {}) }));
  redactFlowSecrets(exchanges, secrets);
  const checks = [...c.checks.filter((k) => k.id !== 'secret-not-exposed'), { id: 'secret-not-exposed' as const, status: 'failed' as const }];
  const outcome = c.outcome === 'passed' ? 'failed' : c.outcome;
  return { ...c, outcome, checks, findings: [...c.findings, finding], exchanges };
}
