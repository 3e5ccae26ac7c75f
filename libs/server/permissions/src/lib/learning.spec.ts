import { mayLearn } from './learning';
import { routeRisk } from './route-risk';

describe('learning mode', () => {
  it('lets learning mode forward only the API and feeds, never what hands out secrets', () => {
    for (const path of ['/api/v3/movie/5', '/API/V3/History', '/feed/v3/calendar/radarr.ics', '/api/v3/movie/{id}'])
      expect([path, mayLearn('radarr', 'get', path)]).toEqual([path, true]);
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
      expect([path, mayLearn('radarr', 'get', path)]).toEqual([path, false]);
    for (const path of ['/initialize.json', '/backup/x.zip', '/logfile/radarr.txt', '/signalr/messages'])
      expect([path, routeRisk('radarr', undefined, 'get', path).sensitive]).toEqual([path, true]);
  });

  it('never forwards Sonarr v5 secrets and controls, by name or by the resolved route’s schema', () => {
    for (const [method, path] of [
      ['get', '/api/v5/settings/general'],
      ['put', '/api/v5/settings/general/1'],
      ['get', '/api/v5/settings/update'],
      ['put', '/api/v5/settings/update/1'],
      ['get', '/api/v5/connection'],
      ['get', '/api/v5/connection/1'],
      ['post', '/api/v5/system/script'],
    ])
      expect([method, path, mayLearn('sonarr', method, path)]).toEqual([method, path, false]);
    expect(mayLearn('sonarr', 'get', '/api/v5/series')).toBe(true);
    // A harmless-looking path whose route's description carries a secret field.
    const route = { path: '/api/v5/settings/{section}', operations: { get: { secretFields: ['apiKey'] } } };
    expect(mayLearn('sonarr', 'get', '/api/v5/settings/somewhere', route)).toBe(false);
    expect(mayLearn('sonarr', 'get', '/api/v5/settings/somewhere', { path: '/api/v5/settings/{section}' })).toBe(true);
  });
});
