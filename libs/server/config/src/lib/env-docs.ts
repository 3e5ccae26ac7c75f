import { ENV_SECTIONS, ENV_VARIABLES, EnvVariable, namesOf } from './env-variables';

export const ENV_TABLE_START = '<!-- env-table:start -->';
export const ENV_TABLE_END = '<!-- env-table:end -->';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function meaning(variable: EnvVariable): string {
  return [
    variable.description,
    ...(variable.type === 'integer' ? [`Integer, ${variable.min}–${variable.max}`] : []),
    ...(variable.file ? [`\`${variable.name}_FILE\`: a file holding it instead (a mounted secret; set only one)`] : []),
    ...(variable.secret ? ['A secret: keep it out of images and version control'] : []),
  ].join('. ');
}

function row(variable: EnvVariable): string {
  const names = namesOf(variable)
    .map((name) => `\`${name}\``)
    .join(' / ');
  return `| ${names} | ${cell(variable.default)} | ${cell(meaning(variable))} |`;
}

/**
 * The documentation's table of environment variables, one table per section, made from
 * `ENV_VARIABLES`: what `npm run docs:env` writes into `docs/configuration.md` between the markers.
 */
export function renderEnvTable(): string {
  const lines = [
    '<!-- Generated from libs/server/config/src/lib/env-variables.ts by `npm run docs:env`: edit it there. -->',
  ];
  for (const [key, title] of Object.entries(ENV_SECTIONS)) {
    const rows = (ENV_VARIABLES as readonly EnvVariable[]).filter((v) => v.section === key);
    if (rows.length === 0) continue;
    lines.push('', `**${title}**`, '', '| variable | default | meaning |', '|---|---|---|', ...rows.map(row));
  }
  return lines.join('\n');
}

/** `markdown` with what stands between the env-table markers replaced by `table` (an error without both). */
export function replaceEnvTable(markdown: string, table: string): string {
  const start = markdown.indexOf(ENV_TABLE_START);
  const end = markdown.indexOf(ENV_TABLE_END);
  if (start < 0 || end < start) throw new Error(`no ${ENV_TABLE_START} … ${ENV_TABLE_END} section`);
  return `${markdown.slice(0, start + ENV_TABLE_START.length)}\n\n${table}\n\n${markdown.slice(end)}`;
}
