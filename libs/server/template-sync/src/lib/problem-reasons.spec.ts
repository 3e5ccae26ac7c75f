import { parseTemplateFile } from '@arrbiter/server/templates';
import { contentFreeReason } from './problem-reasons';

const SECRET = 'hunter2-canary';

/** The reason the template reader gives for a file's text. */
function readerReason(text: string): string {
  const parsed = parseTemplateFile(text);
  if (!('reason' in parsed)) throw new Error('expected the file to be refused');
  return parsed.reason;
}

describe(contentFreeReason.name, () => {
  it.each([
    [`${SECRET}\n`, 'not valid JSON'],
    [`{"/api/v3/movie": ["get"] "${SECRET}": 1}`, 'not valid JSON (line 1, column 27)'],
    [`{"${SECRET}": `, 'not valid JSON (it ends too soon)'],
    [JSON.stringify(SECRET), 'not a JSON object mapping API paths to arrays of HTTP methods'],
    [
      JSON.stringify({ '/api/v3/movie': [SECRET, 7] }),
      'not a usable template: a method is not a lower-case HTTP method (get, head, post, put, patch, delete, options)',
    ],
    [
      JSON.stringify({ [`/${SECRET}?x`]: ['get'], '/api/v3/a': SECRET }),
      'not a usable template: a key is not an API path (absolute, segments literal or {param}, no query); a value is not an array of methods',
    ],
  ])('says what is wrong with %j without quoting it', (text, expected) => {
    const original = readerReason(text);
    const reason = contentFreeReason(original);
    expect(reason).toBe(expected);
    expect(reason).not.toContain('hunter');
  });

  it('keeps reasons made of fixed text, and says something general for one it does not know', () => {
    for (const fixed of ['not a regular file', 'larger than 256 KiB', 'unknown service type (known: sonarr, radarr)'])
      expect(contentFreeReason(fixed)).toBe(fixed);
    expect(contentFreeReason(`something new about "${SECRET}"`)).toBe(
      'not a usable template: a JSON object mapping API paths to arrays of lower-case HTTP methods',
    );
  });
});
