// The generated tables of the docs: the options of `conformance run` (docs/options.md) from the CLI's option
// definitions, and the checks (docs/checks.md) from the check registry, the fault-code table and the checks'
// descriptions. Each sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`.
//
//   node --import tsx scripts/docs-tables.mjs           rewrite the blocks
//   node --import tsx scripts/docs-tables.mjs --check   exit 1 (naming the file) when a block differs from the code
//   --root DIR                                           the folder holding docs/ (default: this repository)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { addRunOptions, envName } from '../src/runner/cli/run-options.ts';
import { ALIASES } from '../src/runner/cli/config-file.ts';
import { INSTALLED_PACKS } from '../src/packs/index.ts';
import { CHECKS } from '../src/runner/checks/registry.ts';
import { FAULT_CODES } from '../src/runner/checks/fault-codes.ts';
import { CHECK_DOCS } from '../src/runner/checks/descriptions.ts';

const here = dirname(fileURLToPath(import.meta.url));
const configSchema = JSON.parse(readFileSync(join(here, '../src/runner/cli/config.schema.json'), 'utf8'));

/** A table cell: pipes escaped, newlines flattened. */
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
const code = (text) => '`' + String(text).replace(/\|/g, '\\|') + '`';

/** The config-file key of an option: its attribute, or the plural the file reads better in; none outside the file. */
function configKey(option, packUrlKeys) {
  const attribute = option.attributeName();
  const plural = Object.entries(ALIASES).find(([, a]) => a === attribute)?.[0];
  if (plural) return plural;
  if (configSchema.properties?.[attribute] || packUrlKeys.has(attribute)) return attribute;
  return undefined;
}

function defaultOf(option) {
  const value = option.defaultValue;
  if (value === undefined) return '';
  if (Array.isArray(value)) return value.length === 0 ? '' : code(value.join(','));
  return code(value);
}

/** The options table: every option of `conformance run` (plan and config take the same), as commander holds it. */
export function optionsTable() {
  const cmd = addRunOptions(new Command('run'), INSTALLED_PACKS);
  const packUrlKeys = new Set(INSTALLED_PACKS.flatMap((p) => p.baseUrlOptions ?? []).map((o) => o.flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase())));
  const rows = cmd.options.map((option) => {
    const key = configKey(option, packUrlKeys);
    return `| ${code(option.flags)} | ${code(envName(option.attributeName()))} | ${key ? code(key) : '—'} | ${defaultOf(option)} | ${cell(option.description)} |`;
  });
  return ['| flag | environment | config key | default | what it does |', '|---|---|---|---|---|', ...rows].join('\n');
}

function wfcOf(id) {
  const row = FAULT_CODES[id];
  if (row === undefined) return '—';
  return row.writes !== undefined ? `${row.code} (${row.writes} on a write)` : String(row.code);
}

/** The checks table: every registered check, in the order of the descriptions (then any without one). */
export function checksTable() {
  const ids = [...Object.keys(CHECK_DOCS).filter((id) => CHECKS.has(id)), ...[...CHECKS.keys()].filter((id) => CHECK_DOCS[id] === undefined)];
  const rows = ids.map((id) => {
    const doc = CHECK_DOCS[id] ?? '(no description yet: add one to src/runner/checks/descriptions.ts)';
    return `| ${code(id)} | ${CHECKS.get(id).scope} | ${wfcOf(id)} | ${cell(doc)} |`;
  });
  return ['| check | kind | WFC | what it asserts |', '|---|---|---|---|', ...rows].join('\n');
}

/** Each generated block: the file it lives in (relative to the root) and what it holds. */
export const BLOCKS = [
  { name: 'options', file: 'docs/options.md', render: optionsTable },
  { name: 'checks', file: 'docs/checks.md', render: checksTable },
];

/** The text with the block `name` replaced by `body`; throws when the markers are missing. */
export function replaceBlock(text, name, body) {
  const open = `<!-- generated:${name} -->`;
  const close = `<!-- /generated:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`no ${open} … ${close} block`);
  return `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
}

function main(argv) {
  const check = argv.includes('--check');
  const at = argv.indexOf('--root');
  const root = at >= 0 ? resolve(argv[at + 1]) : resolve(here, '..');
  let stale = 0;
  for (const block of BLOCKS) {
    const path = join(root, block.file);
    const text = readFileSync(path, 'utf8');
    let next;
    try {
      next = replaceBlock(text, block.name, block.render());
    } catch (error) {
      console.error(`${block.file}: ${error.message}`);
      stale++;
      continue;
    }
    if (next === text) continue;
    if (check) {
      console.error(`${block.file}: the ${block.name} table differs from the code; run: node --import tsx scripts/docs-tables.mjs`);
      stale++;
    } else {
      writeFileSync(path, next);
      console.log(`${block.file}: ${block.name} table written`);
    }
  }
  return stale === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
