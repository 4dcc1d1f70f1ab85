/** Plain-text helpers shared by the reporters: body truncation, exchange transcripts, durations. */
import type { Exchange, Finding, RecordedRequest, RecordedResponse } from '../model.ts';

export interface Truncated {
  text: string;
  truncated: boolean;
  /** Size of the full text in UTF-8 bytes. */
  bytes: number;
}

/**
 * The same text as a string of its own: flat (not the tree of pieces it was concatenated from, nor a slice
 * keeping a longer text alive) and one byte a character when every character allows it (a string joined from a
 * piece stored two bytes a character stays two bytes a character, even for plain ASCII). For texts kept all run.
 */
export function ownString(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** Cuts text to at most maxBytes UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): Truncated {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return { text, truncated: false, bytes };
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (used + size > maxBytes) break;
    used += size;
    end += ch.length;
  }
  return { text: text.slice(0, end), truncated: true, bytes };
}

/** "4 KiB", "812 B", "1.5 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trimZero(bytes / 1024)} KiB`;
  return `${trimZero(bytes / (1024 * 1024))} MiB`;
}

function trimZero(n: number): string {
  return n.toFixed(1).replace(/\.0$/, '');
}

/** "850 ms", "1.20 s", "2 min 05 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${String(seconds).padStart(2, '0')} s`;
}

/** Milliseconds as JUnit seconds with millisecond precision ("1.234"). */
export function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/** A value as readable text: strings as they are, everything else as indented JSON. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The note appended to a cut body. */
export function truncationNote(shownBytes: number, totalBytes: number, cutByEngine: boolean): string {
  const shown = `first ${formatBytes(shownBytes)} of ${formatBytes(totalBytes)} shown`;
  return cutByEngine ? `[body cut at the body cap; ${shown}]` : `[body truncated; ${shown}]`;
}

/** Body text ready to show, cut at maxBytes, with a note when anything is missing. */
export function bodyText(body: string, maxBytes: number, response?: Pick<RecordedResponse, 'truncated' | 'size'>): Truncated & { note?: string } {
  const cut = truncateUtf8(body, maxBytes);
  const total = response?.truncated ? Math.max(response.size, cut.bytes) : cut.bytes;
  if (!cut.truncated && !response?.truncated) return cut;
  return { ...cut, note: truncationNote(Buffer.byteLength(cut.text, 'utf8'), total, Boolean(response?.truncated)) };
}

function headerLines(prefix: string, headers: Record<string, string>): string[] {
  return Object.entries(headers).map(([name, value]) => `${prefix}${name}: ${value}`);
}

export function requestTranscript(request: RecordedRequest, maxBodyBytes: number): string[] {
  const lines = [`> ${request.method} ${request.url}`, ...headerLines('> ', request.headers)];
  if (request.body !== undefined && request.body !== '') {
    const body = bodyText(request.body, maxBodyBytes);
    lines.push('>', body.text);
    if (body.note) lines.push(body.note);
  }
  return lines;
}

export function responseTranscript(response: RecordedResponse, maxBodyBytes: number): string[] {
  const lines = [`< ${response.status}`, ...headerLines('< ', response.headers)];
  if (response.body !== '') {
    const body = bodyText(response.body, maxBodyBytes, response);
    lines.push('<', body.text);
    if (body.note) lines.push(body.note);
  }
  return lines;
}

/** A redacted exchange as a curl -v style transcript. */
export function exchangeTranscript(exchange: Exchange, maxBodyBytes: number): string {
  const lines = requestTranscript(exchange.request, maxBodyBytes);
  if (exchange.response) lines.push('', ...responseTranscript(exchange.response, maxBodyBytes));
  if (exchange.error) lines.push('', `! ${exchange.error.kind}: ${exchange.error.message}`);
  return lines.join('\n');
}

/** A finding as indented plain text: message, expected, actual, schema errors, spec location, waiver. */
export function findingText(finding: Finding, options: { request?: boolean } = {}): string {
  const lines = [`[${finding.severity}] ${finding.check}: ${finding.message}`];
  const indent = (text: string): string => text.split('\n').join('\n    ');
  if (finding.expected !== undefined) lines.push(`  expected: ${indent(showValue(finding.expected))}`);
  if (finding.actual !== undefined) lines.push(`  actual:   ${indent(showValue(finding.actual))}`);
  for (const e of finding.schemaErrors ?? []) {
    lines.push(`  schema:   ${e.instancePath || '(root)'} ${e.message} (at ${e.schemaPath})`);
    if (e.expected !== undefined) lines.push(`            expected ${JSON.stringify(e.expected)}`);
  }
  if (finding.specLocation) lines.push(`  spec:     ${finding.specLocation}`);
  if (options.request !== false) lines.push(`  request:  ${finding.method} ${finding.path}`);
  if (finding.waived) lines.push(`  waived until ${finding.waived.expires}: ${finding.waived.reason}`);
  return lines.join('\n');
}
