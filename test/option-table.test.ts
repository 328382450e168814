/**
 * The option table (helpers/command/option-table.ts) is the one place an option is written: the
 * ranges and messages of number options, --help, the README's flag table and the typed API's
 * names all follow its rows, so a row added or changed shows in each.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { OPTIONS, type OptionRow } from '../helpers/command/option-table.ts';
import { givenByApiName, HELP, parseOptions, resolveOptions } from '../helpers/command/options.ts';
import { ruleText } from '../helpers/command/option-checks.ts';
import { projectRoot } from '../helpers/core/paths.ts';

const rows: readonly OptionRow[] = OPTIONS;

describe('a number option takes the bounds of its range and refuses a step past them, with its own message', () => {
  const nearMisses = rows.filter((r) => r.number).flatMap((row) => {
    const { min, max, above, whole } = row.number!;
    const step = whole ? 1 : 0.001;
    const cases: [string, string, boolean][] = [
      [row.flag, String(above ? min + step : min), true],
      [row.flag, String(above ? min : min - step), false],
      [row.flag, 'x', false],
    ];
    if (max !== undefined) cases.push([row.flag, String(Math.floor(max)), true], [row.flag, String(max + step), false]);
    if (whole) cases.push([row.flag, String(min + 0.5), false]);
    return cases;
  });
  test.for(nearMisses)('--%s %s: taken %s', ([flag, value, taken]) => {
    const row = rows.find((r) => r.flag === flag)!;
    if (!taken) return void expect(() => parseOptions([`--${flag}`, value], {})).toThrow(`--${flag} must be ${ruleText(row.number!)}, got "${value}"`);
    const n = Number(value);
    expect(parseOptions([`--${flag}`, value], {})).toMatchObject({ [row.field!]: row.scale ? row.scale(n) : n });
  });
});

describe('a flag refuses the flags its row names, and needs one of those it needs', () => {
  const words = (flag: string) => (rows.find((r) => r.flag === flag)!.arg ? [`--${flag}`, 'x'] : [`--${flag}`]);
  const refusals = rows.flatMap((r) => (r.refuses ?? []).flatMap((refusal) => refusal.flags.map((other): [string, string, string] => [r.flag, other, refusal.why])));
  test.for(refusals)('--%s with --%s', ([flag, other, why]) => {
    expect(() => parseOptions([...words(flag), ...words(other)], {})).toThrow(why);
  });
  const needs = rows.filter((r) => r.needs).flatMap((r) => r.needs!.flags.map((other): [string, string, string] => [r.flag, other, r.needs!.why]));
  test.for(needs)('--%s alone, and with --%s', ([flag, other, why]) => {
    expect(() => parseOptions(words(flag), {})).toThrow(why);
    // Whatever else is wrong with "x", it is not this rule.
    expect(() => parseOptions([...words(flag), ...words(other)], {})).not.toThrow(why);
  });
});

describe('--help', () => {
  const entries = HELP.slice(HELP.indexOf('Options:'), HELP.indexOf('\nverify <bundle-dir>'));
  test('lists every flag of the table with its environment variable and its default, and no flag that is not one', () => {
    const listed = new Set([...entries.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]));
    for (const row of rows.filter((r) => r.help || r.besideAbove)) expect(listed, row.flag).toContain(row.flag);
    for (const flag of listed) expect(rows.map((r) => r.flag), flag).toContain(flag);
    for (const row of rows.filter((r) => r.env)) expect(entries).toMatch(new RegExp(`--${row.flag} .*\\(env ${row.env}\\)`));
    for (const row of rows.filter((r) => r.help?.includes('{default}'))) expect(entries).toContain(`default ${row.shownDefault ?? String(row.default)}`);
  });
});

test('the flag table (docs/options.md) names every flag of the table and its environment variable', () => {
  const readme = readFileSync(join(projectRoot, 'docs/options.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Running against a target'), readme.indexOf('### The networks staging sits behind'));
  const table = section.split('\n').filter((l) => l.startsWith('|')).join('\n');
  for (const row of rows) {
    expect(table, row.flag).toMatch(new RegExp(`\`(-${row.short}\`, \`)?--${row.flag}[\` ]`));
    if (row.env) expect(table, row.flag).toMatch(new RegExp(`--${row.flag}.*\\| \`${row.env}\``));
  }
});

describe('the typed API', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scr-option-table-'));
  const json = (name: string) => (writeFileSync(join(dir, name), '{}'), join(dir, name));
  /** A value each text option of the API takes; a number takes one above its least, a switch true: none of them a default. */
  const TEXTS: Record<string, string> = {
    'base-url': 'https://staging.example.com', 'api-key': 'sk_api_1', 'expired-key': 'sk_expired_2', config: json('vendor.json'),
    'report-dir': join(dir, 'reports'), only: '^BUS-', expect: json('expect.json'), summary: join(dir, 'summary.md'),
  };
  const apiRows = rows.filter((r) => r.api);
  test.for(apiRows.map((r) => [r.api!, r.flag]))('%s is --%s: the same value in RunOptions', ([api, flag]) => {
    const row = rows.find((r) => r.flag === flag)!;
    const value = !row.arg ? true : row.number ? row.number.min + 1 : TEXTS[flag];
    expect(value, `a sample value for --${flag}`).toBeDefined();
    const fromApi = resolveOptions(givenByApiName({ [api]: value }), {});
    const fromFlag = parseOptions(row.arg ? [`--${flag}`, String(value)] : [`--${flag}`], {});
    expect(fromApi[row.field as keyof typeof fromApi]).toEqual(fromFlag[row.field as keyof typeof fromFlag]);
    expect(fromApi[row.field as keyof typeof fromApi]).not.toEqual(parseOptions([], {})[row.field as keyof typeof fromFlag]);
  });
});
