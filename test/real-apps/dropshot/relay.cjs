#!/usr/bin/env node
/**
 * Runs one of dropshot's example programs on 127.0.0.1:PORT. The examples take no address: they bind
 * 127.0.0.1:0 (a port the system picks) and log it ("listening, local_addr: 127.0.0.1:NNNN" on stderr). They
 * also print their OpenAPI description on stdout at start ("OpenAPI spec:" before it, in api-trait). This
 * script starts the example, saves the description it printed to SPECFILE, and then relays every TCP
 * connection to 127.0.0.1:PORT to the example's port byte for byte (it does not read HTTP); it stops the
 * example when it is stopped.
 *   usage: node relay.cjs EXAMPLE_BINARY PORT SPECFILE
 */
'use strict';
const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const net = require('node:net');

const [binary, port, specFile] = process.argv.slice(2);
const example = spawn(binary, [], { stdio: ['ignore', 'pipe', 'pipe'] });
let stdout = '';
let stderr = '';
let relay;
example.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
example.stderr.setEncoding('utf8').on('data', (chunk) => {
  stderr += chunk;
  const bound = /local_addr: 127\.0\.0\.1:(\d+)/.exec(stderr);
  if (bound && !relay) start(Number(bound[1]));
});
example.on('exit', (code, signal) => {
  process.stderr.write(`example exited (${code ?? signal})\n${stderr}`);
  process.exit(1);
});

/** The description: the first JSON value on stdout (the example prints it before it binds). */
function description() {
  const text = stdout.slice(stdout.indexOf('{'));
  for (let end = text.lastIndexOf('}'); end > 0; end = text.lastIndexOf('}', end - 1)) {
    try {
      return JSON.parse(text.slice(0, end + 1));
    } catch {
      // a shorter prefix
    }
  }
  throw new Error(`no OpenAPI description on the example's stdout: ${stdout.slice(0, 200)}`);
}

function start(inner) {
  writeFileSync(specFile, `${JSON.stringify(description(), null, 2)}\n`);
  relay = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ port: inner, host: '127.0.0.1', allowHalfOpen: true });
    client.pipe(upstream).on('error', () => client.destroy());
    upstream.pipe(client).on('error', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  relay.listen(Number(port), '127.0.0.1');
}

function stop() {
  example.removeAllListeners('exit');
  example.once('exit', () => process.exit(0));
  example.kill('SIGTERM');
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// A relay that fails on its own (its port taken, no description printed) takes its example with it.
process.on('uncaughtException', (error) => {
  process.stderr.write(`relay: ${error.message}\n`);
  example.removeAllListeners('exit');
  example.kill('SIGTERM');
  process.exit(1);
});
