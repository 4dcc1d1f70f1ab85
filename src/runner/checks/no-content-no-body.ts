import type { RecordedResponse } from '../model.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * What HTTP says of an answer with no content, broken by this one: a 204 and a 304 end at their header (RFC 9110
 * §15.3.5, §15.4.5; RFC 9112 §6.3), and a 204 sends no Transfer-Encoding (RFC 9112 §6.1) and no Content-Length (RFC
 * 9110 §8.6; 0 is let pass, as most clients take it). A 304 may carry the Content-Length or Transfer-Encoding its 200
 * would have: not judged. Empty when the answer keeps them.
 */
export function noContentBreaches(response: Pick<RecordedResponse, 'status' | 'headers' | 'body' | 'size' | 'bytesAfterEnd'>): string[] {
  const { status, headers } = response;
  if (status !== 204 && status !== 304) return [];
  const out: string[] = [];
  if (response.body !== '' || response.size > 0) out.push(`a body of ${response.size} bytes`);
  else if (response.bytesAfterEnd) out.push('more bytes after its header');
  if (status === 204) {
    const length = headers['content-length'];
    if (length !== undefined && length.trim() !== '0') out.push(`Content-Length: ${length.slice(0, 20)}`);
    const coding = headers['transfer-encoding'];
    if (coding !== undefined) out.push(`Transfer-Encoding: ${coding.slice(0, 40)}`);
  }
  return out;
}

/**
 * A 204 or 304 answer carries no content, and a 204 no framing that announces some: a client that trusts the
 * framing reads the rest as the next answer on the connection (one that does not, undici among them, drops the
 * connection). What the engine sees: the body and headers as received, and bytes that came after the header in
 * the same read (`bytesAfterEnd`, http/exchange.ts).
 */
export const noContentNoBody: Check = {
  id: 'no-content-no-body',
  scope: 'response',
  run(ctx) {
    const { request, response } = ctx.exchange;
    const breaches = noContentBreaches(response);
    if (breaches.length === 0) return [];
    const call = `${request.method} ${new URL(request.url).pathname}`;
    const rule = response.status === 204 ? 'a 204 has no content and no Content-Length or Transfer-Encoding' : 'a 304 has no content';
    return [
      finding(ctx, 'no-content-no-body', 'error', `${call} answered ${response.status} with ${breaches.join(' and ')}, but ${rule} (RFC 9110): a client may read the rest as the next answer.`, {
        expected: rule,
        actual: breaches.join('; '),
      }),
    ];
  },
};
