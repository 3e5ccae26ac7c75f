import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Angular drops a text node that is only blanks (`preserveWhitespaces: false`), so `</strong> <span>`
 * reads "Movies HDradarr" to a screen reader and in copied text, however the flex gap shows it. A space
 * that must stay between two elements is written `&ngsp;`.
 */
const BLANK_BETWEEN_ELEMENTS = /(?:<\/[a-z][\w-]*>|\/>)[ \t]+<[a-z][\w-]*[\s>/]/i;

function templates(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return templates(path);
    return /\.html$|(?<!\.spec)\.ts$/.test(name) ? [path] : [];
  });
}

describe('dashboard templates', () => {
  it('keep the space between two elements on one line (&ngsp;), which Angular would drop', () => {
    const roots = [join(__dirname), join(__dirname, '../../../../libs/dashboard')];
    const found = roots
      .flatMap(templates)
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${relative(join(__dirname, '../../../..'), file)}:${i + 1}` }))
          .filter(({ line }) => BLANK_BETWEEN_ELEMENTS.test(line)),
      )
      .map(({ at, line }) => `${at}: ${line.trim()}`);
    expect(found).toEqual([]);
  });
});
