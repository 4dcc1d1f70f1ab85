/**
 * Preloaded by the bench (NODE_OPTIONS=--import) into a deployment it starts in a process of its own: counts the
 * requests every HTTP server of that process receives and answers the count at GET /__bench/requests (not
 * counted, never passed on), so the bench can count what each tool sent to a target outside the bench process.
 */
import http from 'node:http';

let count = 0;
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event === 'request') {
    const [req, res] = args;
    if (req.url === '/__bench/requests') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(String(count));
      return true;
    }
    count++;
  }
  return emit.call(this, event, ...args);
};
