import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../../..');

/** The Node.js flags before the script in a `node <flags> dist/apps/server/main.js` command. */
function flagsOf(words: string[]): string[] {
  expect(words[0]).toBe('node');
  expect(words.at(-1)).toBe('dist/apps/server/main.js');
  return words.slice(1, -1);
}

describe('the process start (docs/architecture.md, "Process start")', () => {
  const start = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(resolve(ROOT, 'docker/Dockerfile'), 'utf8'))?.[1];

  it("runs the image's CMD with the V8 flags of npm start", () => {
    expect(cmd).toBeDefined();
    expect(flagsOf(JSON.parse(cmd as string) as string[])).toEqual(flagsOf(start.split(' ')));
  });

  it('gives V8 the flag the streaming-memory policy relies on', () => {
    expect(flagsOf(start.split(' '))).toContain('--expose-gc');
  });
});
