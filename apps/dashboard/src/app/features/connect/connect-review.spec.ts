import type { KnownClientCallDto, KnownClientDto, RouteRiskDto, ServiceDto } from '@arrbiter/contracts';
import {
  idList,
  initials,
  matchingServices,
  reviewGroups,
  searchClients,
  sensitiveIncludes,
  stepOf,
  tickKey,
  withoutIt,
} from './connect-review';

const SAFE: RouteRiskDto = { sensitive: false, destructive: false, purpose: 'read library', reason: 'Reads.' };
const COMMAND: RouteRiskDto = {
  sensitive: true,
  destructive: false,
  purpose: 'system',
  reason: 'Runs any command on the server.',
};

function call(
  method: string,
  path: string,
  route: string | null,
  risk: RouteRiskDto,
  note?: string,
): KnownClientCallDto {
  return { method, path, route, risk, source: { file: 'base.ts', function: `Api.${method}${path.length}` }, note };
}

const CALLS: KnownClientCallDto[] = [
  call('post', '/api/v3/command', '/api/v3/command', COMMAND, 'MoviesSearch, after re-monitoring a movie'),
  call('get', '/api/v3/movie/123', '/api/v3/movie/{id}', SAFE, 'Availability sync.'),
  call('get', '/api/v3/movie/7', '/api/v3/movie/{id}', SAFE),
  call('post', '/api/v3/movie', '/api/v3/movie', { ...SAFE, purpose: 'add/search' }),
  call('get', '/ping', null, { ...SAFE, purpose: 'system' }),
];

const CLIENT: KnownClientDto = {
  id: 'overseerr',
  name: 'Overseerr',
  projectUrl: 'https://overseerr.dev',
  source: { repository: 'https://github.com/sct/overseerr', ref: 'v1.34.0', commit: 'c617' },
  templateNames: ['overseerr'],
  calls: { radarr: 5, sonarr: 1, lidarr: 0 },
  instructions: true,
  services: { radarr: CALLS, sonarr: [CALLS[0]] },
};

function service(id: string, type: string): ServiceDto {
  return { id, type, name: `${type} ${id}` } as ServiceDto;
}

describe('connect review', () => {
  it('draws an avatar from the name', () => {
    expect(initials('Overseerr')).toBe('OV');
    expect(initials('cross-seed')).toBe('CS');
    expect(initials('TitleCardMaker')).toBe('TC');
    expect(initials('')).toBe('?');
  });

  it('finds clients by name, id or service type, and services of a type the client calls', () => {
    const other = { ...CLIENT, id: 'bazarr', name: 'Bazarr', calls: { sonarr: 3 } };
    expect(searchClients([CLIENT, other], ' OVER').map((c) => c.id)).toEqual(['overseerr']);
    expect(searchClients([CLIENT, other], 'radarr').map((c) => c.id)).toEqual(['overseerr']);
    expect(searchClients([CLIENT, other], '').length).toBe(2);
    // lidarr has no calls: not a type Overseerr talks to.
    const services = [service('a', 'radarr'), service('b', 'lidarr'), service('c', 'sonarr')];
    expect(matchingServices(CLIENT, services).map((s) => s.id)).toEqual(['a', 'c']);
  });

  it('groups the calls by purpose in a fixed order, one per grant, paths outside the API by their path', () => {
    const groups = reviewGroups(CALLS);
    expect(groups.map((g) => g.purpose)).toEqual(['read library', 'add/search', 'system']);
    const read = groups[0].calls;
    expect(read).toHaveLength(1);
    expect(read[0]).toMatchObject({
      key: 'get /api/v3/movie/{id}',
      sample: '/api/v3/movie/123',
      note: 'Availability sync.',
    });
    expect(read[0].calls).toHaveLength(2);
    expect(groups[2].calls.map((c) => c.route)).toEqual(['/api/v3/command', '/ping']);
  });

  it('says in one line what breaks without a sensitive call', () => {
    const command = reviewGroups(CALLS)[2].calls[0];
    expect(withoutIt('Overseerr', command)).toBe(
      "Without it, Overseerr's Api.post15 gets 403: MoviesSearch, after re-monitoring a movie.",
    );
  });

  it('names only the ticked sensitive calls, each with its service', () => {
    const services = [service('a', 'radarr'), service('c', 'sonarr')];
    const command = reviewGroups(CALLS)[2].calls[0];
    const ticked = new Set([tickKey('a', command)]);
    expect(sensitiveIncludes(CLIENT, ['a', 'c'], services, ticked)).toEqual([
      { method: 'post', route: '/api/v3/command', serviceId: 'a' },
    ]);
    expect(sensitiveIncludes(CLIENT, ['a', 'c'], services, new Set())).toEqual([]);
  });

  it('reads the step and the services from the URL', () => {
    expect(stepOf('review')).toBe('review');
    expect(stepOf('nonsense')).toBe('client');
    expect(stepOf(undefined)).toBe('client');
    expect(idList('a, b,,a')).toEqual(['a', 'b']);
    expect(idList(undefined)).toEqual([]);
  });
});
