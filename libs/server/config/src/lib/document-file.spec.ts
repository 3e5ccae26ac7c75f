import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDocumentFile } from './document-file';

describe(readDocumentFile.name, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'arrbiter-document-file-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the file and the value of each reference its text holds', () => {
    writeFileSync(join(dir, 'key'), 'from-a-file\n');
    writeFileSync(join(dir, 'empty'), '');
    writeFileSync(
      join(dir, 'doc.yaml'),
      `a: \${SET}\nb: \${file:${join(dir, 'key')}}\nc: \${UNSET}\nd: \${file:${join(dir, 'nope')}}\ne: \${file:${join(dir, 'empty')}}\nf: $\${LITERAL}\ng: \${SET}\n`,
    );
    const file = readDocumentFile('doc.yaml', { SET: 'from-the-environment', EMPTY: '' }, dir);
    expect(file.path).toBe(join(dir, 'doc.yaml'));
    expect(file.text).toContain('${SET}');
    expect([...file.references]).toEqual([
      ['${SET}', { value: 'from-the-environment' }],
      [`\${file:${join(dir, 'key')}}`, { value: 'from-a-file' }],
      ['${UNSET}', { problem: 'the environment variable UNSET is not set' }],
      [`\${file:${join(dir, 'nope')}}`, { problem: `${join(dir, 'nope')} cannot be read (ENOENT)` }],
      [`\${file:${join(dir, 'empty')}}`, { problem: `${join(dir, 'empty')} is empty` }],
    ]);
  });

  it('throws when the file itself cannot be read', () => {
    expect(() => readDocumentFile(join(dir, 'missing.yaml'), {})).toThrow(
      `cannot be read (ENOENT): ${join(dir, 'missing.yaml')}`,
    );
  });
});
