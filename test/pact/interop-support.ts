/** Shared by the interoperability tests (interop.test.ts, interop-jvm.test.ts): the tool's own verdicts and a faulty variant. */
import { spawn } from 'node:child_process';
import { PACT_STATES_ROUTE, type ReferenceService, type Variant } from '../../src/reference-service/index.ts';
import { verifyPacts } from '../../src/runner/pact/verify.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { customerPack } from '../../src/packs/customer/index.ts';
import { COMMITTED_PACTS, CONTRACT_FILES, ONBOARDING_PACT, TRADE_PACT } from './support.ts';

export const TOKEN = `pact-interop-${Math.random().toString(36).slice(2)}-secret`;
const contract = await loadContract(CONTRACT_FILES);
export const PROVIDERS = { 'customer-service': ONBOARDING_PACT, 'foreign-trade-service': TRADE_PACT } as const;
export type Provider = keyof typeof PROVIDERS;
export type Verdicts = Record<string, 'passed' | 'failed'>;

export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 400_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export async function toolVerdicts(svc: ReferenceService): Promise<Verdicts> {
  const result = await verifyPacts({
    pacts: [COMMITTED_PACTS],
    baseUrls: { 'customer-service': svc.customerBaseUrl, 'foreign-trade-service': svc.foreignTradeBaseUrl },
    packs: [customerPack],
    token: TOKEN,
    contract,
    stateChangeUrl: (provider) => `${svc.url}${PACT_STATES_ROUTE}/${provider}`,
  });
  return Object.fromEntries(result.interactions.map((i) => [`${i.provider}: ${i.description}`, i.outcome === 'passed' ? 'passed' : 'failed']));
}

/** One field dropped from one response: the interaction that reads it fails, and only it. */
export const dropFieldKey: Variant = {
  handlers: {
    'get-address-type-field-by-id': async (_req, next) => {
      const reply = await next();
      if (reply.status !== 200) return reply;
      const { fieldKey: _dropped, ...rest } = reply.body as Record<string, unknown>;
      return { ...reply, body: rest };
    },
  },
};
