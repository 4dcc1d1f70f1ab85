/** Reporting: pure renderers over results.json and the writers the engine calls. */
export {
  OUTCOMES,
  blockingFindings,
  caseOutcome,
  computeVerdict,
  countOutcomes,
  countTested,
  isBlocking,
  operationOutcome,
  sortExpiredWaivers,
  sortOperations,
  sortPactInteractions,
  summarise,
  type FailOn,
  type UnsummarisedResults,
  type Verdict,
} from './outcomes.ts';
export {
  applyWaivers,
  isExpired,
  loadWaivers,
  localDate,
  parseWaivers,
  unusedWaivers,
  WaiverFileError,
  type LoadWaiversOptions,
  type Waiver,
} from './waivers.ts';
export { renderJunit, renderJunitTo, type JunitOptions } from './junit.ts';
export { renderHtml, renderHtmlTo, buildReportView, type HtmlOptions } from './html.ts';
export { toCurl, shellQuote, carriesToken, TOKEN_VARIABLE } from './curl.ts';
export { ConsoleProgress, isInteractive, renderSummary, type ConsoleOptions, type ProgressStream, type ReportPaths } from './console.ts';
export { writeReports, serialiseResults, serialiseResultsTo, type ReportFiles, type WriteReportsOptions } from './write.ts';
export { mergeResults, readResultsDir, ResultsInputError } from './merge.ts';
export { validateResults, RESULTS_SCHEMA_URL, type ResultsSchemaError } from './results-schema.ts';
export { operationWithTexts, withTexts } from './case-spool.ts';
