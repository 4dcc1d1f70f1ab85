/**
 * A secret seen anywhere: a secret the run obtains out of band (a one-time password read from the OTP source) is
 * looked for in every answer of the run, not only in its own case's. The case that read it judges its own answers
 * as they come (checks/secret-not-exposed.ts) and redacts them; another case's answer may carry it too (a user
 * record that shows a pending one-time password), judged before or after the secret was read depending on the
 * order the cases ran in. So the answers of every case are kept (their header values and bodies, as the case
 * recorded them) and searched once, at the end, for every secret the run obtained: the verdict does not depend on
 * order at any concurrency. Only where the run can obtain such a secret (an OTP source), and up to a bound.
 */
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

export class SecretWatch {
  private readonly kept = new Map<string, Map<number, KeptAnswer[]>>();
  private chars = 0;
  /** Answers no longer kept, for the bound. */
  skipped = 0;

  constructor(private readonly limit = WATCH_CHARS) {}

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
    const byIndex = this.kept.get(operationId) ?? new Map<number, KeptAnswer[]>();
    this.kept.set(operationId, byIndex);
    byIndex.set(index, answers);
  }

  /** Every kept answer that carries one of the secrets: one finding per case (its first such answer). */
  exposures(secrets: readonly string[], operation: (operationId: string) => Operation | undefined): Exposure[] {
    const live = secrets.filter((s) => s.length >= 4);
    const out: Exposure[] = [];
    if (live.length === 0) return out;
    for (const [operationId, byIndex] of this.kept) {
      const op = operation(operationId);
      for (const [index, answers] of byIndex) {
        const shown = answers.find((a) => a.parts.some((part) => live.some((s) => carriesSecret(part, s))));
        if (!shown || !op) continue;
        const where = `${shown.request.method} ${new URL(shown.request.url).pathname}`;
        const curl = live.reduce((text, s) => text.split(s).join(SECRET_PLACEHOLDER), toCurl(shown.request));
        out.push({
          operationId,
          index,
          finding: {
            check: 'secret-not-exposed',
            severity: 'error',
            operationId,
            method: op.method as HttpMethod,
            path: op.path,
            message: `The response to ${where} (${shown.status}) carries a one-time password the run obtained out of band for another operation's flow.`,
            expected: 'no secret the run obtained in any response',
            actual: 'the secret (redacted)',
            specLocation: `${op.specFile}#${op.pointer}`,
            request: { method: shown.request.method as HttpMethod, url: live.reduce((text, s) => text.split(s).join(SECRET_PLACEHOLDER), shown.request.url), status: shown.status },
            curl,
          },
        });
      }
    }
    this.kept.clear();
    return out;
  }
}

/** The case with the exposure's finding (failed, the check failed) and the secrets redacted from its exchanges. */
export function withExposure(c: CaseResult, finding: Finding, secrets: readonly string[]): CaseResult {
  const exchanges = c.exchanges.map((e) => ({ ...e, request: { ...e.request }, ...(e.response ? { response: { ...e.response, headers: { ...e.response.headers } } } : {}) }));
  redactFlowSecrets(exchanges, secrets);
  const checks = [...c.checks.filter((k) => k.id !== 'secret-not-exposed'), { id: 'secret-not-exposed' as const, status: 'failed' as const }];
  const outcome = c.outcome === 'passed' ? 'failed' : c.outcome;
  return { ...c, outcome, checks, findings: [...c.findings, finding], exchanges };
}
