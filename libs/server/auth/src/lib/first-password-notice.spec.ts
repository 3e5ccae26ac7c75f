import { firstPasswordNotice, serverCommand } from './first-password-notice';

describe(firstPasswordNotice.name, () => {
  const password = 'Zm9vYmFyYmF6cXV4cXV1eA';

  it('keeps the password out of the log line and puts it once in the block', () => {
    const notice = firstPasswordNotice('admin', password, { embedded: true, dataDir: '/data' });
    expect(notice.line).not.toContain(password);
    expect(notice.block.split(password)).toHaveLength(2);
    expect(notice.block).toContain(`generated password: ${password}`);
  });

  it('names the command of the image, to be run with the server stopped, on the embedded database', () => {
    const notice = firstPasswordNotice('admin', password, {
      embedded: true,
      dataDir: '/config',
      command: serverCommand('/app/dist/apps/server/main.js', '/app'),
    });
    for (const text of [notice.line, notice.block]) {
      expect(text).toContain('node dist/apps/server/main.js reset-password admin');
      expect(text).toContain('stop Arrbiter (its embedded database is locked while it runs)');
      expect(text).toContain(
        'docker run --rm -v <your volume>:/config <image> node dist/apps/server/main.js reset-password admin',
      );
      expect(text).not.toContain('npm run');
    }
  });

  it('runs the command beside the server on an external PostgreSQL', () => {
    const notice = firstPasswordNotice('root', password, {
      embedded: false,
      dataDir: '/data',
      command: 'node dist/apps/server/main.js',
    });
    expect(notice.line).toContain('docker exec <container> node dist/apps/server/main.js reset-password root');
    expect(notice.line).not.toContain('stop');
  });
});

describe(serverCommand.name, () => {
  it('is the script relative to the working directory, else the build path', () => {
    expect(serverCommand('/app/dist/apps/server/main.js', '/app')).toBe('node dist/apps/server/main.js');
    expect(serverCommand('/srv/arrbiter/main.js', '/home/me')).toBe('node /srv/arrbiter/main.js');
    expect(serverCommand('/repo/node_modules/jest/bin/jest.js', '/repo')).toBe('node dist/apps/server/main.js');
  });
});
