import { randomFillSync } from 'node:crypto';

/**
 * Random hex strings for per-request ids (trace span ids, unique suffixes), drawn from a pool of random bytes
 * filled a few kilobytes at a time: one call into the random source per 4 KiB instead of one per request.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;

export function randomHex(bytes: number): string {
  if (bytes > pool.length) return randomFillSync(Buffer.alloc(bytes)).toString('hex');
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}
