/**
 * What memory keeps of the run's cases holds equal values once. A large run keeps tens of thousands of case
 * summaries until the reports are written (2,770 operations: about 48,000 cases), and most of what they hold
 * repeats: the same list of check results, the same case names, skip reasons, finding messages and locations.
 * Each case is built afresh, so without this every copy of "presence" or of a five-check list is a string or
 * an array of its own. The values are the same, only shared: nothing that reads the results can tell.
 */
import type { CaseResult, CheckResult, Finding, LocationCounts } from '../model.ts';

/** Longer texts are rarely repeated (they name ids, values or bodies): they are kept as they are. */
const MAX_SHARED_LENGTH = 512;
/** A bound on what the tables hold, so a run of unique texts costs no more than the texts themselves. */
const MAX_ENTRIES = 50_000;

export class SharedValues {
  private readonly texts = new Map<string, string>();
  private readonly checkLists = new Map<string, CheckResult[]>();
  private readonly locationCounts = new Map<string, LocationCounts>();

  /** The first equal text seen, else this one (remembered for the next). */
  text(value: string): string;
  text(value: string | undefined): string | undefined;
  text(value: string | undefined): string | undefined {
    if (value === undefined || value.length > MAX_SHARED_LENGTH) return value;
    const known = this.texts.get(value);
    if (known !== undefined) return known;
    // A short text cut from a long one (a message quoting a body) may share the long one's memory and keep all of
    // it alive: what is remembered is a copy of its own.
    const own = ownCopy(value);
    if (this.texts.size < MAX_ENTRIES) this.texts.set(own, own);
    return own;
  }

  /** The first equal list of check results seen (id and status only), else this one. */
  checks(list: CheckResult[]): CheckResult[] {
    if (list.length === 0 || !list.every(plainCheck)) return list;
    const key = list.map((c) => `${c.id}\u0000${c.status}`).join('\u0001');
    const known = this.checkLists.get(key);
    if (known) return known;
    const shared = list.map((c) => ({ id: this.text(c.id) as CheckResult['id'], status: c.status }));
    if (this.checkLists.size < MAX_ENTRIES) this.checkLists.set(key, shared);
    return shared;
  }

  /** The case with its repeated texts and its check list shared (a new object; the given one is not changed). */
  caseResult(c: CaseResult): CaseResult {
    const shared: CaseResult = { ...c, name: this.text(c.name), checks: this.checks(c.checks), findings: c.findings.map((f) => this.finding(f)) };
    if (c.skipReason !== undefined) shared.skipReason = this.text(c.skipReason);
    if (c.errorMessage !== undefined) shared.errorMessage = this.text(c.errorMessage);
    if (c.requestsByLocation !== undefined) shared.requestsByLocation = this.locations(c.requestsByLocation);
    return shared;
  }

  /** The first equal count of requests by location seen (only ever summed: report/assemble.ts), else this one. */
  private locations(counts: LocationCounts): LocationCounts {
    const key = JSON.stringify(counts);
    const known = this.locationCounts.get(key);
    if (known) return known;
    if (this.locationCounts.size < MAX_ENTRIES) this.locationCounts.set(key, counts);
    return counts;
  }

  private finding(f: Finding): Finding {
    const shared: Record<string, unknown> = { ...f };
    for (const [key, value] of Object.entries(shared)) if (typeof value === 'string') shared[key] = this.text(value);
    return shared as unknown as Finding;
  }
}

/** The same text in a string of its own (JSON round trip keeps every code unit, lone surrogates included). */
function ownCopy(value: string): string {
  return JSON.parse(JSON.stringify(value)) as string;
}

function plainCheck(c: CheckResult): boolean {
  return Object.keys(c).length === 2 && typeof c.id === 'string' && typeof c.status === 'string';
}
