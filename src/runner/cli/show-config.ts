/** `conformance config`: the effective options, where each comes from, secrets masked. */
import { parseHeader } from '../http/client-options.ts';
import { envName, SECRET_OPTIONS, type Resolved } from './run-options.ts';

const MASK = '****';

function mask(key: string, value: unknown, secretHeaders: readonly string[]): unknown {
  if (SECRET_OPTIONS.has(key)) return MASK;
  if (key === 'header' && Array.isArray(value)) {
    return value.map((h: string) => {
      const parsed = parseHeader(h, secretHeaders);
      return `${parsed.secret ? '!' : ''}${parsed.name}:${parsed.secret ? MASK : parsed.value}`;
    });
  }
  if (key === 'proxy' && typeof value === 'string') return value.replace(/\/\/[^@/]*@/, `//${MASK}@`);
  return value;
}

export function showConfig(resolved: Resolved): string {
  const { flags, sources, file } = resolved;
  const lines = [`# effective options: flags > environment (CONFORMANCE_*) > ${file ? file.path : 'config file (none found)'} > defaults`];
  const secretHeaders = flags.secretHeader ?? [];
  const width = Math.max(...Object.keys(sources).map((k) => k.length));
  for (const [key, source] of Object.entries(sources)) {
    const value = mask(key, (flags as unknown as Record<string, unknown>)[key], secretHeaders);
    const where = source === 'env' ? `env ${envName(key)}` : source === 'file' ? `file ${file?.keys[key] ?? key}` : source;
    lines.push(`${key.padEnd(width)}  ${JSON.stringify(value)}  (${where})`);
  }
  return `${lines.join('\n')}\n`;
}
