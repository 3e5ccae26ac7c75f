import type { FitMissingCall, FitResult, KnownClientSummaryDto, RouteRiskDto } from '@arrbiter/contracts';
import {
  clientForTemplate,
  coverageLine,
  fileName,
  fitSentence,
  missingRoutes,
  releaseUrl,
  repositoryName,
  serviceTypeName,
  sourceUrl,
  splitCallers,
} from './known-clients';

const client = (id: string, templateNames: string[]): KnownClientSummaryDto => ({
  id,
  name: id,
  projectUrl: `https://github.com/x/${id}`,
  source: { repository: `https://github.com/x/${id}`, ref: 'v1', commit: 'c'.repeat(40) },
  templateNames,
  calls: {},
  instructions: false,
});
const SAFE: RouteRiskDto = {
  sensitive: false,
  destructive: false,
  purpose: 'read library',
  reason: 'Hands out no secrets, does not control the server and deletes nothing.',
};

const fit = (calls: number, missing: number, unused = 0): FitResult => ({
  client: 'maintainerr',
  clientName: 'Maintainerr',
  serviceType: 'radarr',
  calls,
  covered: calls - missing,
  missing: Array.from({ length: missing }, (_, i) => ({
    method: 'get',
    route: `/api/v3/r${i}`,
    sample: `/api/v3/r${i}`,
    source: { file: 'a.ts', function: 'f' },
    risk: SAFE,
  })),
  unused: Array.from({ length: unused }, (_, i) => ({ method: 'get', route: `/api/v3/u${i}`, risk: SAFE })),
});

describe('known clients', () => {
  it('finds the client written for a template by its id or one of its template names, ignoring case', () => {
    const clients = [client('seerr', ['seerr', 'overseerr-fork']), client('jellyseerr', ['jellyseerr'])];
    expect(clientForTemplate('jellyseerr', clients)?.id).toBe('jellyseerr');
    expect(clientForTemplate('Seerr', clients)?.id).toBe('seerr');
    expect(clientForTemplate('overseerr-fork', clients)?.id).toBe('seerr');
    expect(clientForTemplate('overseerr', [client('seerr', ['overseerr'])])?.id).toBe('seerr');
    expect(clientForTemplate('nzb360', clients)).toBeUndefined();
    expect(clientForTemplate(null, clients)).toBeUndefined();
    expect(clientForTemplate('', clients)).toBeUndefined();
  });

  it("links a call's file at the commit the calls were read from, or at the library's own", () => {
    const source = { repository: 'https://github.com/Maintainerr/Maintainerr', ref: 'v3', commit: 'abc123' };
    expect(sourceUrl(source, { file: 'apps/server/radarr.helper.ts', function: 'RadarrApi.updateMovie' })).toBe(
      'https://github.com/Maintainerr/Maintainerr/blob/abc123/apps/server/radarr.helper.ts',
    );
    // A library's call: its repository and commit, not the client's.
    expect(
      sourceUrl(source, {
        file: '/src/sonarr.ts',
        function: 'getSeries',
        repository: 'https://github.com/lib/arr-api.git/',
        ref: 'v2',
        commit: 'def456',
      }),
    ).toBe('https://github.com/lib/arr-api/blob/def456/src/sonarr.ts');
    expect(sourceUrl(source, { file: 'x.ts', function: 'f', repository: 'https://github.com/lib/l', ref: 'v2' })).toBe(
      'https://github.com/lib/l/blob/v2/x.ts',
    );
    // Unknown repository, or one that is not a web address: no link.
    expect(sourceUrl(undefined, { file: 'x.ts', function: 'f' })).toBeNull();
    expect(sourceUrl({ ...source, repository: 'javascript:alert(1)' }, { file: 'x.ts', function: 'f' })).toBeNull();
  });

  it("links the client's source at the commit its calls were read from", () => {
    const source = { repository: 'https://github.com/Maintainerr/Maintainerr.git', ref: 'v3', commit: 'abc123' };
    expect(releaseUrl(source)).toBe('https://github.com/Maintainerr/Maintainerr/tree/abc123');
    expect(releaseUrl({ ...source, commit: '' })).toBe('https://github.com/Maintainerr/Maintainerr/tree/v3');
    expect(releaseUrl({ ...source, repository: 'git@github.com:x/y' })).toBeNull();
    expect(releaseUrl(undefined)).toBeNull();
  });

  it('names files, repositories and service types briefly', () => {
    expect(fileName('apps/server/src/radarr.helper.ts')).toBe('radarr.helper.ts');
    expect(fileName('main.go')).toBe('main.go');
    expect(repositoryName('https://github.com/owner/name.git')).toBe('owner/name');
    expect(serviceTypeName('radarr')).toBe('Radarr');
  });

  it('says how many calls the client makes and how many the allowlist refuses', () => {
    expect(fitSentence(fit(16, 9))).toBe('Maintainerr makes 16 calls to Radarr; this allowlist refuses 9 of them.');
    expect(fitSentence(fit(16, 0))).toBe(
      'Maintainerr makes 16 calls to Radarr; this allowlist lets all of them through.',
    );
    expect(fitSentence(fit(1, 1))).toBe('Maintainerr makes 1 call to Radarr; this allowlist refuses it.');
    expect(fitSentence(fit(1, 0))).toBe('Maintainerr makes 1 call to Radarr; this allowlist lets it through.');
    expect(fitSentence(fit(0, 0))).toBe('Maintainerr makes no call to Radarr that the catalogue knows of.');
  });

  it('sums a fit up in one line', () => {
    expect(coverageLine(fit(16, 9))).toBe('covers 7 of 16 calls, 9 missing');
    expect(coverageLine(fit(3, 0, 2))).toBe('covers 3 of 3 calls, 0 missing, 2 unused grants');
    expect(coverageLine(fit(1, 0, 1))).toBe('covers 1 of 1 call, 0 missing, 1 unused grant');
  });

  it('groups the refused calls by the grant that lets them through, in order', () => {
    const call = (method: string, route: string, sample: string): FitMissingCall => ({
      method,
      route,
      sample,
      source: { file: 'a.ts', function: sample },
      risk: SAFE,
    });
    const groups = missingRoutes([
      call('get', '/api/v3/series', '/api/v3/series'),
      call('put', '/api/v3/series/{id}', '/api/v3/series/1'),
      call('get', '/api/v3/series', '/api/v3/series?tvdbId=81189'),
    ]);
    expect(groups.map((g) => [g.method, g.route, g.calls.map((c) => c.sample)])).toEqual([
      ['get', '/api/v3/series', ['/api/v3/series', '/api/v3/series?tvdbId=81189']],
      ['put', '/api/v3/series/{id}', ['/api/v3/series/1']],
    ]);
  });

  it("shows a warning's own client in full and the other callers behind a disclosure", () => {
    const caller = (id: string) => ({ client: id, clientName: id, source: { file: `${id}.ts`, function: 'f' } });
    const clients = (list: { client: string }[]) => list.map((c) => c.client);
    const many = [caller('homepage'), caller('lunasea'), caller('maintainerr')];
    let split = splitCallers(many, 'maintainerr');
    expect([clients(split.shown), clients(split.more)]).toEqual([['maintainerr'], ['homepage', 'lunasea']]);
    split = splitCallers(many, 'overseerr');
    expect([clients(split.shown), clients(split.more)]).toEqual([[], ['homepage', 'lunasea', 'maintainerr']]);
    split = splitCallers(many.slice(0, 2), undefined);
    expect([clients(split.shown), clients(split.more)]).toEqual([['homepage', 'lunasea'], []]);
    expect(splitCallers([], 'maintainerr')).toEqual({ shown: [], more: [] });
  });
});
