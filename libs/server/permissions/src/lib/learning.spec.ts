import { mayLearn } from './learning';
import { isSensitive } from './sensitive-paths';

describe('sensitive paths and learning mode', () => {
  it('marks endpoints that expose secrets or control the server', () => {
    for (const path of [
      '/api/v3/config/host',
      '/api/v1/system/backup/restore',
      '/api/v3/downloadclient/{id}',
      '/api/v1/indexer',
    ])
      expect(isSensitive(path)).toBe(true);
    for (const path of ['/api/v3/movie', '/api/v3/config/ui', '/api/v3/system/status', '/api/v3/calendar'])
      expect(isSensitive(path)).toBe(false);
  });

  it('lets learning mode forward only the API and feeds, never what hands out secrets', () => {
    for (const path of ['/api/v3/movie/5', '/API/V3/History', '/feed/v3/calendar/radarr.ics', '/api/v3/movie/{id}'])
      expect([path, mayLearn(path)]).toEqual([path, true]);
    for (const path of [
      '/initialize.json',
      '/initialize.js',
      '/Initialize.JSON',
      '/backup/radarr_backup.zip',
      '/logfile/radarr.txt',
      '/signalr/messages/negotiate',
      '/',
      '/login',
      '/api',
      '/apiv3/movie',
      '/api/v3/config/host',
      '/api/v3/system/shutdown',
    ])
      expect([path, mayLearn(path)]).toEqual([path, false]);
    for (const path of ['/initialize.json', '/backup/x.zip', '/logfile/radarr.txt', '/signalr/messages'])
      expect([path, isSensitive(path)]).toEqual([path, true]);
  });
});
