import type { ApiError, AppDto, Page, ServiceDto, TemplateDto } from '@arrbiter/contracts';
import { AppProxyCounts } from '@arrbiter/server/apps';
import { TemplatesService } from '@arrbiter/server/templates';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';
import { seedProxy, seedService } from '@arrbiter/server/testing';

const UNKNOWN = '00000000-0000-4000-8000-999999999999';

/** `GET /api/admin/v1/apps`: keyset pages by name then id, search, filters, counts for the page. */
describe('admin API: the apps list', () => {
  let t: TestApp;
  let admin: AdminClient;
  let radarr: FakeServarr;
  let sonarr: FakeServarr;
  /** Every app created, by slug. */
  const apps = new Map<string, AppDto>();
  let alpha: TemplateDto;
  let beta: TemplateDto;

  const create = async (name: string, slug: string, templateId: string | null = null, active = true) => {
    const app = (await admin.post('/api/admin/v1/apps', { name, slug, templateId, active }).expect(201)).body as AppDto;
    apps.set(slug, app);
    return app;
  };
  const addProxy = (app: AppDto, service: ServiceDto) => seedProxy(admin, { service, app });
  const page = async (query: string): Promise<Page<AppDto>> =>
    (await admin.get(`/api/admin/v1/apps${query}`).expect(200)).body as Page<AppDto>;
  /** Every page of the list for `query`, following the cursors; each page at most `limit` long. */
  const chain = async (query: string, limit: number): Promise<{ pages: number; items: AppDto[] }> => {
    const items: AppDto[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const next: Page<AppDto> = await page(
        `?${query}${query ? '&' : ''}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(next.items.length).toBeLessThanOrEqual(limit);
      if (next.nextCursor !== null) expect(next.items).toHaveLength(limit);
      items.push(...next.items);
      cursor = next.nextCursor;
      pages += 1;
      if (pages > 100) throw new Error('the cursors do not end');
    } while (cursor !== null);
    return { pages, items };
  };
  const slugs = (items: AppDto[]) => items.map((app) => app.slug);
  const message = (body: unknown) => JSON.stringify((body as ApiError).message ?? body);

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    radarr = await FakeServarr.start({ type: 'radarr' });
    sonarr = await FakeServarr.start({ type: 'sonarr' });
    const [movies, series] = [await seedService(admin, radarr), await seedService(admin, sonarr)];
    // Two local templates, saved from an app with a proxy.
    const seed = await create('Seed', 'seed');
    await addProxy(seed, movies);
    alpha = (await admin.post(`/api/admin/v1/apps/${seed.id}/save-as-template`, { name: 'Alpha' }).expect(201))
      .body as TemplateDto;
    beta = (await admin.post(`/api/admin/v1/apps/${seed.id}/save-as-template`, { name: 'Beta' }).expect(201))
      .body as TemplateDto;
    // 42 numbered apps: every third on Alpha, every fifth inactive.
    for (let i = 0; i < 42; i += 1) {
      const n = String(i).padStart(2, '0');
      await create(`App ${n}`, `app-${n}`, i % 3 === 0 ? alpha.id : null, i % 5 !== 0);
    }
    // Names with LIKE's wildcards and escape character, and look-alikes they would match unescaped.
    await create('100% Radarr', 'hundred', beta.id);
    await create('100 Radarr', 'hundred-plain', beta.id);
    await create('Under_score', 'under-score');
    await create('UnderXscore', 'under-x-score');
    await create('Back\\slash', 'back-slash');
    await create('Overseerr', 'requests-box', beta.id, false);
    // Two apps of one name: the id orders them, also across a page boundary.
    await create('Twin', 'twin-1');
    await create('Twin', 'twin-2');
    await addProxy(apps.get('app-00') as AppDto, movies);
    await addProxy(apps.get('app-00') as AppDto, series);
    await addProxy(apps.get('app-01') as AppDto, series);
  });
  afterAll(async () => {
    await radarr?.stop();
    await sonarr?.stop();
    await t?.close();
  });

  afterEach(() => jest.restoreAllMocks());

  describe('pages', () => {
    it('answers {items, nextCursor}: 50 apps by default, then the rest', async () => {
      expect(apps.size).toBe(51);
      const first = await page('');
      expect(first.items).toHaveLength(50);
      const rest = await page(`?cursor=${first.nextCursor}`);
      expect(rest.items).toHaveLength(1);
      expect(rest.nextCursor).toBeNull();
      expect(new Set(slugs([...first.items, ...rest.items]))).toEqual(new Set(apps.keys()));
    });

    it.each([1, 2, 3, 7, 50, 51, 200])(
      'follows the cursors of pages of %i through every app exactly once, in the order of one page',
      async (limit) => {
        const all = (await page('?limit=200')).items;
        expect(all).toHaveLength(apps.size);
        const { pages, items } = await chain('', limit);
        expect(slugs(items)).toEqual(slugs(all));
        expect(pages).toBe(Math.max(1, Math.ceil(apps.size / limit)));
      },
    );

    it('orders by name, then id', async () => {
      const all = (await page('?limit=200')).items;
      const numbered = all.filter((app) => app.slug.startsWith('app-'));
      expect(slugs(numbered)).toEqual([...apps.keys()].filter((slug) => slug.startsWith('app-')).sort());
      const twins = all.filter((app) => app.name === 'Twin').map((app) => app.id);
      expect(twins).toEqual([...twins].sort());
      // The twins next to each other, even when a page ends between them.
      const at = all.findIndex((app) => app.name === 'Twin');
      expect(all[at + 1].name).toBe('Twin');
      const split = await page(`?limit=${at + 1}`);
      expect(split.items.at(-1)?.id).toBe(twins[0]);
      expect((await page(`?limit=1&cursor=${split.nextCursor}`)).items[0].id).toBe(twins[1]);
    });

    it('keeps its place when apps are added before and after it between two pages', async () => {
      const first = await page('?limit=10');
      const before = await create('AAA Newcomer', 'aaa-newcomer');
      const after = await create('zzz Newcomer', 'zzz-newcomer');
      try {
        const { items } = await (async () => {
          const rest: AppDto[] = [];
          let cursor = first.nextCursor;
          while (cursor) {
            const next = await page(`?limit=10&cursor=${cursor}`);
            rest.push(...next.items);
            cursor = next.nextCursor;
          }
          return { items: rest };
        })();
        const seen = slugs([...first.items, ...items]);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toContain('zzz-newcomer');
        expect(seen).not.toContain('aaa-newcomer');
      } finally {
        for (const app of [before, after]) {
          await admin.delete(`/api/admin/v1/apps/${app.id}`).expect(204);
          apps.delete(app.slug);
        }
      }
    });

    it('answers 400 for a page size outside 1-200 and for a cursor it did not hand out', async () => {
      for (const limit of ['0', '201', 'ten', '-1'])
        expect([limit, (await admin.get(`/api/admin/v1/apps?limit=${limit}`)).status]).toEqual([limit, 400]);
      const other = Buffer.from(`2030-01-01T00:00:00.000Z|${UNKNOWN}`).toString('base64url');
      for (const cursor of ['nonsense', other, Buffer.from('["x"]').toString('base64url')]) {
        const response = await admin.get(`/api/admin/v1/apps?cursor=${cursor}`).expect(400);
        expect(message(response.body)).toContain('cursor is not a cursor this API returned');
      }
      const unknown = await admin.get('/api/admin/v1/apps?sort=name').expect(400);
      expect(message(unknown.body)).toContain('sort');
    });
  });

  describe('search', () => {
    it('finds a part of the name or the slug, whatever the case', async () => {
      expect(slugs((await page('?q=APP%2003')).items)).toEqual(['app-03']);
      expect(slugs((await page('?q=requests')).items)).toEqual(['requests-box']);
      expect(slugs((await page('?q=SEERR')).items)).toEqual(['requests-box']);
      expect((await page('?q=app%200')).items).toHaveLength(10);
      expect((await page('?q=nothing-like-this')).items).toEqual([]);
    });

    it('takes %, _ and \\ literally', async () => {
      expect(slugs((await page(`?q=${encodeURIComponent('100%')}`)).items)).toEqual(['hundred']);
      expect(slugs((await page(`?q=${encodeURIComponent('%')}`)).items)).toEqual(['hundred']);
      expect(slugs((await page('?q=r_s')).items)).toEqual(['under-score']);
      expect(slugs((await page('?q=_')).items)).toEqual(['under-score']);
      expect(slugs((await page(`?q=${encodeURIComponent('\\')}`)).items)).toEqual(['back-slash']);
      expect(slugs((await page(`?q=${encodeURIComponent('k\\s')}`)).items)).toEqual(['back-slash']);
    });

    it('pages through the matches, the search kept with the cursor', async () => {
      const { items } = await chain('q=app', 4);
      expect(new Set(slugs(items))).toEqual(new Set([...apps.keys()].filter((slug) => slug.startsWith('app-'))));
    });

    it('answers 400 for a search longer than a name can be', async () => {
      await admin.get(`/api/admin/v1/apps?q=${'a'.repeat(101)}`).expect(400);
    });
  });

  describe('filters', () => {
    const expected = (keep: (app: AppDto) => boolean) => new Set([...apps.values()].filter(keep).map((a) => a.slug));

    it('by template, and "none" for apps without one', async () => {
      expect(new Set(slugs((await chain(`templateId=${alpha.id}`, 5)).items))).toEqual(
        expected((a) => a.templateId === alpha.id),
      );
      expect(new Set(slugs((await chain(`templateId=${beta.id}`, 2)).items))).toEqual(
        new Set(['hundred', 'hundred-plain', 'requests-box']),
      );
      expect(new Set(slugs((await chain('templateId=none', 7)).items))).toEqual(expected((a) => a.templateId === null));
      expect((await page(`?templateId=${UNKNOWN}`)).items).toEqual([]);
      for (const templateId of ['radarr', '', 'NONE'])
        await admin.get(`/api/admin/v1/apps?templateId=${templateId}`).expect(400);
    });

    it('by state', async () => {
      expect(new Set(slugs((await chain('state=inactive', 3)).items))).toEqual(expected((a) => !a.active));
      expect(new Set(slugs((await chain('state=active', 9)).items))).toEqual(expected((a) => a.active));
      await admin.get('/api/admin/v1/apps?state=true').expect(400);
    });

    it('together with the search', async () => {
      const found = await chain(`q=app&templateId=${alpha.id}&state=inactive`, 1);
      // App 00, 15 and 30: a multiple of 3 (Alpha) and of 5 (inactive).
      expect(slugs(found.items)).toEqual(['app-00', 'app-15', 'app-30']);
      expect(slugs((await page(`?q=radarr&templateId=none`)).items)).toEqual([]);
    });
  });

  describe("each page's proxy counts and template names", () => {
    it('are those of its apps', async () => {
      const all = new Map((await page('?limit=200')).items.map((app) => [app.slug, app]));
      expect(all.get('app-00')).toMatchObject({ proxyCount: 2, templateId: alpha.id, templateName: 'Alpha' });
      expect(all.get('app-01')).toMatchObject({ proxyCount: 1, templateId: null, templateName: null });
      expect(all.get('app-02')).toMatchObject({ proxyCount: 0, templateName: null });
      expect(all.get('seed')).toMatchObject({ proxyCount: 1, templateName: null });
      expect(all.get('hundred')).toMatchObject({ proxyCount: 0, templateName: 'Beta' });
    });

    it("are read for the page's apps only, with one call to the proxies and one to the templates", async () => {
      const counts = jest.spyOn(t.app.get(AppProxyCounts), 'countFor');
      const names = jest.spyOn(t.app.get(TemplatesService), 'namesOf');
      const second = await page(`?limit=5&cursor=${(await page('?limit=5')).nextCursor}`);
      expect(counts).toHaveBeenCalledTimes(2);
      expect(names).toHaveBeenCalledTimes(2);
      expect(counts.mock.calls[1][0]).toEqual(second.items.map((app) => app.id));
      expect(new Set(names.mock.calls[1][0])).toEqual(
        new Set(second.items.flatMap((app) => (app.templateId ? [app.templateId] : []))),
      );
    });

    it('an empty page asks neither', async () => {
      const counts = jest.spyOn(t.app.get(AppProxyCounts), 'countFor');
      const names = jest.spyOn(t.app.get(TemplatesService), 'namesOf');
      expect(await page('?q=nothing-like-this')).toEqual({ items: [], nextCursor: null });
      expect(counts).not.toHaveBeenCalled();
      expect(names).not.toHaveBeenCalled();
    });
  });

  it('one app still answers with its counts and template name, and 404 when there is none', async () => {
    const app = apps.get('app-00') as AppDto;
    expect((await admin.get(`/api/admin/v1/apps/${app.id}`).expect(200)).body).toMatchObject({
      slug: 'app-00',
      proxyCount: 2,
      templateName: 'Alpha',
    });
    await admin.get(`/api/admin/v1/apps/${UNKNOWN}`).expect(404);
  });

  it("the templates' app counts are read from the apps module: the list's and one template's", async () => {
    const using = (template: TemplateDto) => [...apps.values()].filter((app) => app.templateId === template.id).length;
    expect(using(alpha)).toBeGreaterThan(0);
    expect(using(beta)).toBeGreaterThan(0);
    const listed = (await admin.get('/api/admin/v1/templates').expect(200)).body as TemplateDto[];
    expect(listed.find((template) => template.id === alpha.id)?.appCount).toBe(using(alpha));
    expect(listed.find((template) => template.id === beta.id)?.appCount).toBe(using(beta));
    expect(((await admin.get(`/api/admin/v1/templates/${beta.id}`).expect(200)).body as TemplateDto).appCount).toBe(
      using(beta),
    );
  });
});
