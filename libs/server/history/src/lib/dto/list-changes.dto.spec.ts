import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ListChangesDto } from './list-changes.dto';

/** The properties refused for a query string, validated as the server's ValidationPipe does. */
async function refused(query: Record<string, string>): Promise<string[]> {
  const errors = await validate(plainToInstance(ListChangesDto, query), {
    whitelist: true,
    forbidNonWhitelisted: true,
  });
  return errors.map((error) => error.property);
}

describe(ListChangesDto.name, () => {
  it('accepts no filter, and every filter together', async () => {
    expect(await refused({})).toEqual([]);
    expect(
      await refused({
        objectType: 'proxy',
        objectId: '00000000-0000-4000-8000-000000000001',
        appId: '00000000-0000-4000-8000-000000000002',
        actor: 'admin',
        limit: '200',
        cursor: 'MjAzMC0wMS0wMVQwMDowMDowMC4wMDBafDAwMDAwMDAw',
      }),
    ).toEqual([]);
  });

  it('reads signIns from the query string as a boolean, and refuses anything else', async () => {
    expect(plainToInstance(ListChangesDto, { signIns: 'false' }).signIns).toBe(false);
    expect(plainToInstance(ListChangesDto, { signIns: 'true' }).signIns).toBe(true);
    expect(await refused({ signIns: 'false' })).toEqual([]);
    expect(await refused({ signIns: 'no' })).toEqual(['signIns']);
  });

  it('reads the limit from the query string as a number', () => {
    expect(plainToInstance(ListChangesDto, { limit: '25' }).limit).toBe(25);
  });

  it('refuses an unknown object type', async () => {
    expect(await refused({ objectType: 'user' })).toEqual(['objectType']);
    expect(await refused({ objectType: 'App' })).toEqual(['objectType']);
  });

  it('refuses ids that are not UUIDs', async () => {
    expect(await refused({ objectId: '42', appId: 'notifiarr' })).toEqual(['objectId', 'appId']);
  });

  it('refuses an actor longer than a username can be', async () => {
    expect(await refused({ actor: 'a'.repeat(100) })).toEqual([]);
    expect(await refused({ actor: 'a'.repeat(101) })).toEqual(['actor']);
  });

  it('refuses a page size outside 1-200 and an unknown parameter', async () => {
    expect(await refused({ limit: '0' })).toEqual(['limit']);
    expect(await refused({ limit: '201' })).toEqual(['limit']);
    expect(await refused({ limit: 'ten' })).toEqual(['limit']);
    expect(await refused({ since: '2030-01-01' })).toEqual(['since']);
  });
});
