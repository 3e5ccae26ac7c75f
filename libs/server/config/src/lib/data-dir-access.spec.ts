import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error';
import { dataDirNotWritable, nearestOwner } from './data-dir-access';
import { loadConfig } from './load-config';

// Tests may run as root, where no file mode refuses a write: the refusal is simulated.
let refuseWrites = false;
jest.mock('node:fs', () => {
  const actual = jest.requireActual<typeof import('node:fs')>('node:fs');
  return {
    ...actual,
    writeFileSync: (...args: Parameters<typeof actual.writeFileSync>) => {
      if (refuseWrites) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return actual.writeFileSync(...args);
    },
  };
});

describe(dataDirNotWritable.name, () => {
  it('names the user that must own DATA_DIR and both ways to fix it', () => {
    const line = dataDirNotWritable(
      'EACCES',
      'cannot keep the generated secret key in /data/secret.key',
      '/data',
      { uid: 1000, gid: 1000 },
      { path: '/data', owner: { uid: 0, gid: 0 } },
    );
    expect(line).toContain(
      'DATA_DIR is not writable (EACCES): cannot keep the generated secret key in /data/secret.key',
    );
    expect(line).toContain('runs as uid:gid 1000:1000 and /data belongs to 0:0');
    expect(line).toContain('chown -R 1000:1000');
    expect(line).toContain('PUID/PGID');
    expect(line).toContain('--user');
  });

  it('offers --user with the owner when the owner is not root', () => {
    const line = dataDirNotWritable(
      'EACCES',
      'x',
      '/config',
      { uid: 1000, gid: 1000 },
      {
        path: '/config',
        owner: { uid: 911, gid: 100 },
      },
    );
    expect(line).toContain('--user 911:100');
  });

  it('says only what failed for errors that no owner fixes', () => {
    expect(dataDirNotWritable('EROFS', 'cannot write /data/x', '/data', { uid: 1, gid: 1 })).toBe(
      'DATA_DIR is not writable (EROFS): cannot write /data/x',
    );
  });

  it('finds the owner of the nearest existing parent', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arrbiter-owner-'));
    try {
      expect(nearestOwner(join(dir, 'a', 'b'))?.path).toBe(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('loadConfig on a DATA_DIR it may not write', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'arrbiter-eacces-'))));
  afterEach(() => {
    refuseWrites = false;
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports EACCES with the user that needs to own it', () => {
    refuseWrites = true;
    let problems: readonly string[] = [];
    try {
      loadConfig({ DATA_DIR: dir });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems = error.problems;
    }
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    expect(problems).toEqual([expect.stringContaining('DATA_DIR is not writable (EACCES)')]);
    expect(problems[0]).toContain(`runs as uid:gid ${uid}:${gid}`);
    expect(problems[0]).toContain(`chown -R ${uid}:${gid}`);
  });
});
