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

/** A form's opening tag and its body, up to its end. */
const FORM = /<form\b([^>]*)>([\s\S]*?)<\/form>/g;
/** A field that must be filled, as an attribute (`required`, `[required]="…"`). */
const REQUIRED_FIELD = /<(?:input|select|textarea)\b[^>]*\s\[?required\]?[\s=/>]/;

const ROOTS = [join(__dirname), join(__dirname, '../../../../libs/dashboard')];
const REPO = join(__dirname, '../../../..');

describe('dashboard templates', () => {
  it('give every form with a required field its own messages (novalidate), not the browser’s tooltip', () => {
    const found = ROOTS.flatMap(templates).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(FORM)]
        .filter(([, attributes, body]) => REQUIRED_FIELD.test(body) && !/\snovalidate\b/.test(attributes))
        .map(([, attributes]) => `${relative(REPO, file)}: <form${attributes}>`),
    );
    expect(found).toEqual([]);
  });

  it('keep the space between two elements on one line (&ngsp;), which Angular would drop', () => {
    const found = ROOTS.flatMap(templates)
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${relative(REPO, file)}:${i + 1}` }))
          .filter(({ line }) => BLANK_BETWEEN_ELEMENTS.test(line)),
      )
      .map(({ at, line }) => `${at}: ${line.trim()}`);
    expect(found).toEqual([]);
  });
});
