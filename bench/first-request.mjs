/**
 * Preloaded into the CLI by the bench (NODE_OPTIONS=--import): writes the wall-clock time (ms since the epoch, sub-ms)
 * at which the first request reaches any HTTP server of the CLI process (the embedded reference service) to the file
 * named by BENCH_FIRST_REQUEST_FILE, so the bench can measure the time from spawning the CLI to its first request
 * also when the target lives inside the CLI. Nothing else changes.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';

const file = process.env['BENCH_FIRST_REQUEST_FILE'];
if (file) {
  const emit = http.Server.prototype.emit;
  let seen = false;
  http.Server.prototype.emit = function (event, ...args) {
    if (event === 'request' && !seen) {
      seen = true;
      try {
        writeFileSync(file, String(performance.timeOrigin + performance.now()), { flag: 'wx' });
      } catch {
        // another process of the tree was first
      }
    }
    return emit.call(this, event, ...args);
  };
}
