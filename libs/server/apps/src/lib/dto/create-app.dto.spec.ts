import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { CreateAppDto, SLUG, UpdateAppDto } from './create-app.dto';

const TEMPLATE = '00000000-0000-4000-8000-000000000001';
const VALID = { name: 'Notifiarr', slug: 'notifiarr', templateId: TEMPLATE, active: true };

/** The properties refused in a body, validated as the server's ValidationPipe does. */
async function refused(dto: typeof CreateAppDto | typeof UpdateAppDto, body: object): Promise<string[]> {
  const errors = await validate(plainToInstance(dto, body), { whitelist: true, forbidNonWhitelisted: true });
  return errors.map((error) => error.property);
}

const GOOD_SLUGS = ['a', '0', 'notifiarr', 'my-app-2', 'a-', `a${'b'.repeat(62)}`];
const BAD_SLUGS = ['', '-app', 'App', 'my_app', 'my app', 'my.app', 'a/b', 'é', `a${'b'.repeat(63)}`, 'app\n'];

describe('SLUG', () => {
  it('takes 1-63 lower-case letters, digits or "-", starting with a letter or digit', () => {
    for (const slug of GOOD_SLUGS) expect([slug, SLUG.test(slug)]).toEqual([slug, true]);
    for (const slug of BAD_SLUGS) expect([slug, SLUG.test(slug)]).toEqual([slug, false]);
  });
});

describe(CreateAppDto.name, () => {
  it('accepts an app with a template, and one with no template (null)', async () => {
    expect(await refused(CreateAppDto, VALID)).toEqual([]);
    expect(await refused(CreateAppDto, { ...VALID, templateId: null })).toEqual([]);
  });

  it('requires every field: no template is said with null, not by leaving it out', async () => {
    expect(await refused(CreateAppDto, {})).toEqual(['name', 'slug', 'templateId', 'active']);
    const { templateId: _templateId, ...withoutTemplate } = VALID;
    expect(await refused(CreateAppDto, withoutTemplate)).toEqual(['templateId']);
  });

  it('refuses a slug that is not a URL segment of the proxy, with a message that says what a slug is', async () => {
    for (const slug of BAD_SLUGS)
      expect([slug, await refused(CreateAppDto, { ...VALID, slug })]).toEqual([slug, ['slug']]);
    const [error] = await validate(plainToInstance(CreateAppDto, { ...VALID, slug: 'My_App' }));
    expect(Object.values(error.constraints ?? {})).toEqual([
      'slug must be 1-63 lower-case letters, digits or "-", starting with a letter or digit',
    ]);
  });

  it('takes a name of 1-100 characters', async () => {
    expect(await refused(CreateAppDto, { ...VALID, name: 'n'.repeat(100) })).toEqual([]);
    expect(await refused(CreateAppDto, { ...VALID, name: '' })).toEqual(['name']);
    expect(await refused(CreateAppDto, { ...VALID, name: 'n'.repeat(101) })).toEqual(['name']);
    expect(await refused(CreateAppDto, { ...VALID, name: 42 })).toEqual(['name']);
  });

  it('refuses a template id that is not a UUID, a non-boolean active and unknown fields', async () => {
    expect(await refused(CreateAppDto, { ...VALID, templateId: 'default' })).toEqual(['templateId']);
    expect(await refused(CreateAppDto, { ...VALID, active: 'true' })).toEqual(['active']);
    expect(await refused(CreateAppDto, { ...VALID, id: TEMPLATE })).toEqual(['id']);
  });
});

describe(UpdateAppDto.name, () => {
  it('accepts any subset of the fields, an empty one included, and null to remove the template', async () => {
    expect(await refused(UpdateAppDto, {})).toEqual([]);
    expect(await refused(UpdateAppDto, { templateId: null })).toEqual([]);
    expect(await refused(UpdateAppDto, { active: false })).toEqual([]);
    expect(await refused(UpdateAppDto, VALID)).toEqual([]);
  });

  it('checks each field given as creating does', async () => {
    expect(await refused(UpdateAppDto, { slug: 'Bad Slug' })).toEqual(['slug']);
    expect(await refused(UpdateAppDto, { name: '' })).toEqual(['name']);
    expect(await refused(UpdateAppDto, { name: 'n'.repeat(101) })).toEqual(['name']);
    expect(await refused(UpdateAppDto, { templateId: 'none' })).toEqual(['templateId']);
    expect(await refused(UpdateAppDto, { active: 1 })).toEqual(['active']);
    expect(await refused(UpdateAppDto, { proxyCount: 3 })).toEqual(['proxyCount']);
  });

  it('refuses null for the fields that cannot be empty: only the template can be removed', async () => {
    // Saving a null name, slug or active state would fail on the column's NOT NULL: a 500, not a 400.
    expect(await refused(UpdateAppDto, { name: null })).toEqual(['name']);
    expect(await refused(UpdateAppDto, { slug: null })).toEqual(['slug']);
    expect(await refused(UpdateAppDto, { active: null })).toEqual(['active']);
  });
});
