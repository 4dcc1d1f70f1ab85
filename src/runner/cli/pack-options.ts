/**
 * The command-line conveniences packs add: an option per service base URL (e.g. `--orders-base-url`), read back
 * into base URLs per service id. `--base-url` and `--server <id>=<url>` are the engine's own.
 */
import type { Command } from 'commander';
import type { Pack } from '../pack.ts';
import { baseUrlArgument } from './base-url.ts';

/** Commander's key of an option: --orders-base-url -> ordersBaseUrl. */
export function optionKey(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * `--pack <module>` on every command that acts (not on groups such as `pact`): the packs are read before the
 * command line is parsed (see packArguments); the option is declared so that commander accepts and lists it.
 */
export function addPackOption(command: Command): Command {
  for (const sub of command.commands) addPackOption(sub);
  if (command.commands.length === 0 && !command.options.some((o) => o.long === '--pack')) {
    command.option('--pack <module>', 'also use this pack (a module whose default export is a pack; repeatable)', (v: string, acc: string[] = []) => [...acc, v]);
  }
  return command;
}

/** Adds each pack's base-URL options to a command (once per flag). */
export function addPackBaseUrlOptions(command: Command, packs: readonly Pack[]): Command {
  const seen = new Set<string>();
  for (const pack of packs) {
    for (const o of pack.baseUrlOptions ?? []) {
      if (seen.has(o.flag)) continue;
      seen.add(o.flag);
      command.option(`${o.flag} <url>`, o.description, baseUrlArgument);
    }
  }
  return command;
}

/** The base URLs the packs' options gave, per service id. */
export function packBaseUrls(flags: Record<string, unknown>, packs: readonly Pack[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pack of packs) {
    for (const o of pack.baseUrlOptions ?? []) {
      const value = flags[optionKey(o.flag)];
      if (typeof value === 'string') out[o.service] = value;
    }
  }
  return out;
}

/** Pack modules named with --pack on the command line (read before the options are defined: packs add options). */
export function packArguments(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--pack' && argv[i + 1] !== undefined) out.push(argv[++i]!);
    else if (arg.startsWith('--pack=')) out.push(arg.slice('--pack='.length));
  }
  return out;
}
