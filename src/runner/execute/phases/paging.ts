/**
 * Paging through a list whose contract names paging (plan/paging.ts): the smallest page size its parameter takes,
 * page after page (by the next link a page gives, else by the index or offset parameter), up to MAX_PAGES, with the
 * service's creates held back (a create between two pages would move the records along). Judged (paging-kept): no
 * page holds more records than asked; no record comes twice; where the walk reached the end (an empty page, or no
 * next link) and the total the pages state did not change on the way, it equals the records reached. A page with
 * fewer records than asked is the server's right. Each answer is also judged as any answer of the list.
 */
import type { CaseResult, Exchange } from '../../model.ts';
import { listedIds, listRecords } from '../../checks/created-resource-readable.ts';
import { PAGE_NEXT, PAGE_TOTALS, pagingOf, type Paging } from '../../plan/paging.ts';
import type { CaseRun } from '../case-run.ts';
import { is2xx } from '../judge.ts';
import type { CallRequest } from '../request-builder.ts';
import type { PhaseContext } from './host.ts';

/** Pages asked at most in one walk. */
export const MAX_PAGES = 25;

type Broken = Array<{ message: string; expected?: unknown; actual?: unknown }>;

interface Page {
  exchange: Exchange;
  keys: string[];
  total?: number;
  next?: string;
}

/** The page's total (a known name), its next link (a known name, or links.next), and its records as keys. */
function readPage(exchange: Exchange): Omit<Page, 'exchange'> {
  const json = exchange.response?.json;
  const page = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  const total = PAGE_TOTALS.map((k) => page[k]).find((v): v is number => typeof v === 'number');
  const links = (page['links'] ?? page['_links']) as Record<string, unknown> | undefined;
  const linkNext = typeof links === 'object' && links !== null ? links['next'] : undefined;
  const nextValue = PAGE_NEXT.map((k) => page[k]).find((v) => typeof v === 'string' && v !== '') ?? (typeof linkNext === 'string' ? linkNext : typeof linkNext === 'object' && linkNext !== null ? (linkNext as Record<string, unknown>)['href'] : undefined);
  const ids = listedIds(json);
  const records = listRecords(json);
  const keys = ids.length > 0 && ids.every((id) => id !== undefined && id !== null) ? ids.map((id) => String(id)) : records.map((r) => JSON.stringify(r));
  return { keys, ...(total !== undefined ? { total } : {}), ...(typeof nextValue === 'string' ? { next: nextValue } : {}) };
}

export async function runPaging(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> }): Promise<CaseResult> {
  const { op } = run;
  const paging = pagingOf(op);
  if (!paging) return run.skipped(`${op.method} ${op.path} names no page size with a way to the next page`, 'not-applicable');
  const { pages, ended } = await session.caller.deleteChain(op, () => walk(run, paging, request));
  if (pages.length === 0) return run.result();
  // A walk by index whose first two pages are the same page: the deployment counts its pages from one more than
  // the parameter's least value (pageIndex=0 read as the first page, like pageIndex=1), which the contract leaves
  // open. The first answer is judged as an answer only; paging is judged from the second page on.
  const fromOneMore = paging.step?.kind === 'index' && pages.length >= 2 && pages[0]!.keys.length > 0 && pages[0]!.keys.join('\n') === pages[1]!.keys.join('\n');
  if (fromOneMore) run.judgeIntent(pages[0]!.exchange, { paging: { broken: [] } });
  judgePages(run, paging, fromOneMore ? pages.slice(1) : pages, ended);
  return run.result();
}

/** The pages, from the first, until an empty one, the last link, a refusal, or MAX_PAGES; `ended`: it reached the end. */
async function walk(run: CaseRun, paging: Paging, request: CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> }): Promise<{ pages: Page[]; ended: boolean }> {
  const size = paging.size.smallest;
  const pages: Page[] = [];
  let url: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const step = paging.step ? { [paging.step.name]: paging.step.first + (paging.step.kind === 'index' ? i : i * size) } : {};
    const call: CallRequest = url !== undefined ? { url } : { pathParams: request.pathParams, query: { ...request.query, [paging.size.name]: size, ...step } };
    const exchange = await run.send(run.op, call, { intent: true });
    if (!is2xx(exchange)) {
      run.judgeIntent(exchange);
      return { pages, ended: false };
    }
    const page = { exchange, ...readPage(exchange) };
    pages.push(page);
    if (page.keys.length === 0) return { pages, ended: true };
    // A page past the size asked: a walk by offset or index would only repeat it.
    if (page.keys.length > size) return { pages, ended: false };
    if (page.next !== undefined) {
      try {
        url = new URL(page.next, exchange.request.url).toString();
      } catch {
        return { pages, ended: false };
      }
      continue;
    }
    // No next link: the last page where the pages give links (or there is nothing else to step by).
    if (paging.next || !paging.step) return { pages, ended: true };
    url = undefined;
  }
  return { pages, ended: false };
}

function judgePages(run: CaseRun, paging: Paging, pages: Page[], ended: boolean): void {
  const size = paging.size.smallest;
  const seen = new Map<string, number>();
  const where = (p: Page) => `${p.exchange.request.method} ${new URL(p.exchange.request.url).pathname}${new URL(p.exchange.request.url).search}`;
  pages.forEach((page, i) => {
    const broken: Broken = [];
    if (page.keys.length > size) broken.push({ message: `${where(page)} answered ${page.keys.length} records for ${paging.size.name}=${size}: no page may hold more than the page size asked.`, expected: `at most ${size}`, actual: page.keys.length });
    const again = page.keys.filter((k) => seen.has(k));
    if (again.length > 0) broken.push({ message: `${where(page)} (page ${i + 1}) served again ${again.length} record${again.length === 1 ? '' : 's'} of page ${seen.get(again[0]!)! + 1} (${again.slice(0, 3).join(', ')}): paging through reaches each record once.`, expected: 'each record on one page', actual: again.slice(0, 10) });
    for (const k of page.keys) if (!seen.has(k)) seen.set(k, i);
    const last = i === pages.length - 1;
    if (last) {
      const totals = pages.map((p) => p.total).filter((t): t is number => t !== undefined);
      const stable = totals.length === pages.length && totals.every((t) => t === totals[0]);
      const overflow = pages.some((p) => p.keys.length > size);
      // With the creates held back, a delete elsewhere may only lower the total as the walk goes: a total that
      // stayed the same must equal what paging reached, and none may be below it.
      const most = totals.length > 0 ? Math.max(...totals) : undefined;
      if (ended && !overflow && most !== undefined && ((stable && most !== seen.size) || most < seen.size)) {
        broken.push({ message: `The pages of ${run.op.method} ${run.op.path} state a total of ${most}, but paging through them (${paging.size.name}=${size}, ${pages.length} pages) reached ${seen.size} records: the total counts what paging reaches.`, expected: seen.size, actual: most });
      }
    }
    run.judgeIntent(page.exchange, broken.length > 0 ? { paging: { broken } } : { paging: { broken: [] } });
  });
}
