import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { ConnectClientDto } from './connect.dto';

const SERVICE = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';

/** The properties refused in a body (nested ones by their path), validated as the server's ValidationPipe does. */
async function refused(body: object): Promise<string[]> {
  const paths = (errors: ValidationError[], prefix = ''): string[] =>
    errors.flatMap((e) =>
      e.children?.length ? paths(e.children, `${prefix}${e.property}.`) : [`${prefix}${e.property}`],
    );
  return paths(
    await validate(plainToInstance(ConnectClientDto, body), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

describe(ConnectClientDto.name, () => {
  it('accepts the services alone, and with every optional field', async () => {
    expect(await refused({ serviceIds: [SERVICE] })).toEqual([]);
    expect(
      await refused({
        serviceIds: [SERVICE, OTHER],
        templateId: null,
        include: { sensitive: [{ method: 'post', route: '/api/v3/command', serviceId: OTHER }] },
        name: 'Requests',
        slug: 'requests',
      }),
    ).toEqual([]);
  });

  it('takes 1 to 6 services, each a UUID, none twice', async () => {
    expect(await refused({})).toEqual(['serviceIds']);
    expect(await refused({ serviceIds: [] })).toEqual(['serviceIds']);
    expect(await refused({ serviceIds: ['radarr'] })).toEqual(['serviceIds']);
    expect(await refused({ serviceIds: [SERVICE, SERVICE] })).toEqual(['serviceIds']);
    const seven = Array.from({ length: 7 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
    expect(await refused({ serviceIds: seven })).toEqual(['serviceIds']);
    expect(await refused({ serviceIds: seven.slice(0, 6) })).toEqual([]);
  });

  it('refuses a bad template id, name, slug or sensitive call, and unknown fields', async () => {
    const base = { serviceIds: [SERVICE] };
    expect(await refused({ ...base, templateId: 'homepage' })).toEqual(['templateId']);
    expect(await refused({ ...base, name: '' })).toEqual(['name']);
    expect(await refused({ ...base, name: 'x'.repeat(101) })).toEqual(['name']);
    expect(await refused({ ...base, name: 'x'.repeat(100) })).toEqual([]);
    expect(await refused({ ...base, slug: 'My App' })).toEqual(['slug']);
    expect(await refused({ ...base, include: {} })).toEqual(['include.sensitive']);
    expect(
      await refused({
        ...base,
        include: { sensitive: [{ method: 'fetch', route: 'api/v3/command', serviceId: 'radarr', extra: 1 }] },
      }),
    ).toEqual([
      'include.sensitive.0.extra',
      'include.sensitive.0.method',
      'include.sensitive.0.route',
      'include.sensitive.0.serviceId',
    ]);
    expect(await refused({ ...base, knownClientId: 'overseerr' })).toEqual(['knownClientId']);
  });
});
