/**
 * Runs the reference service on its own:
 *   node --import tsx src/reference-service/main.ts --port 8080 --token T   (npm run reference-service)
 * The token comes from --token or CONFORMANCE_TOKEN. Prints one line with the listening URL and the two
 * base URLs (never the token). Usage errors exit 2; SIGINT/SIGTERM close the server and exit 0.
 */
import { Command, CommanderError } from 'commander';
import { startReferenceService } from './server.ts';

function fail(message: string, code: number): never {
  process.stderr.write(`reference-service: ${message}\n`);
  process.exit(code);
}

interface CliOptions {
  port: string;
  host: string;
  token?: string;
}

function parseArgs(argv: string[]): CliOptions {
  const program = new Command()
    .name('reference-service')
    .description('Embedded reference implementation of the Customer domain service and the foreign-trade service')
    .option('--port <n>', 'port to listen on (0: a free port)', '8080')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--token <token>', 'the accepted bearer token (default: $CONFORMANCE_TOKEN)')
    .exitOverride()
    .configureOutput({ outputError: () => undefined });
  try {
    program.parse(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) process.exit(0);
      fail(err.message.split('\n')[0]?.replace(/^error: /, '') ?? 'invalid arguments', 2);
    }
    throw err;
  }
  return program.opts<CliOptions>();
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv);
  if (!/^\d{1,5}$/.test(opts.port) || Number(opts.port) > 65535) fail(`invalid --port "${opts.port}" (expected 0..65535)`, 2);
  const token = opts.token !== undefined && opts.token !== '' ? opts.token : process.env['CONFORMANCE_TOKEN'];
  if (token === undefined || token === '') fail('no token: pass --token <token> or set CONFORMANCE_TOKEN', 2);

  let service;
  try {
    service = await startReferenceService({ token, host: opts.host, port: Number(opts.port) });
  } catch (err) {
    fail(`cannot listen on ${opts.host}:${opts.port}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  process.stdout.write(
    `reference service listening on ${service.url} (customer-service: ${service.customerBaseUrl}, foreign-trade-service: ${service.foreignTradeBaseUrl})\n`,
  );

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void service.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await main();
