import { BadRequestException } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { containsPattern, decodeAppCursor, encodeAppCursor, ListAppsDto } from './list-apps.dto';

const ID = '00000000-0000-4000-8000-000000000001';

/** The properties refused for a query string, validated as the server's ValidationPipe does. */
async function refused(query: Record<string, string>): Promise<string[]> {
  const errors = await validate(plainToInstance(ListAppsDto, query), { whitelist: true, forbidNonWhitelisted: true });
  return errors.map((error) => error.property);
}

describe(ListAppsDto.name, () => {
  it('accepts no parameter, and every parameter together', async () => {
    expect(await refused({})).toEqual([]);
    expect(
      await refused({
        limit: '200',
        cursor: encodeAppCursor({ name: 'Notifiarr', id: ID }),
        q: 'notif',
        templateId: ID,
        state: 'inactive',
      }),
    ).toEqual([]);
  });

  it('reads the limit from the query string as a number', () => {
    expect(plainToInstance(ListAppsDto, { limit: '25' }).limit).toBe(25);
  });

  it('refuses a page size outside 1-200', async () => {
    for (const limit of ['0', '201', 'ten', '1.5'])
      expect([limit, await refused({ limit })]).toEqual([limit, ['limit']]);
  });

  it('takes a template id or "none" (apps without a template), nothing else', async () => {
    expect(await refused({ templateId: 'none' })).toEqual([]);
    expect(await refused({ templateId: ID.toUpperCase() })).toEqual([]);
    for (const templateId of ['', 'NONE', 'null', '42', `${ID}x`])
      expect([templateId, await refused({ templateId })]).toEqual([templateId, ['templateId']]);
    const [error] = await validate(plainToInstance(ListAppsDto, { templateId: 'radarr' }));
    expect(Object.values(error.constraints ?? {})).toEqual(['templateId must be a UUID or "none"']);
  });

  it('takes the state active or inactive', async () => {
    expect(await refused({ state: 'active' })).toEqual([]);
    expect(await refused({ state: 'Active' })).toEqual(['state']);
    expect(await refused({ state: 'true' })).toEqual(['state']);
  });

  it('refuses a search longer than a name can be, and an unknown parameter', async () => {
    expect(await refused({ q: 'a'.repeat(100) })).toEqual([]);
    expect(await refused({ q: 'a'.repeat(101) })).toEqual(['q']);
    expect(await refused({ search: 'a' })).toEqual(['search']);
  });
});

describe('app cursors', () => {
  it('carry the name and id of the last app of a page, whatever the name holds', () => {
    // The longest name: 100 characters outside the BMP, 400 bytes of UTF-8, still under the DTO's bound.
    expect(encodeAppCursor({ name: '🦊'.repeat(100), id: ID }).length).toBeLessThan(1000);
    for (const name of [
      'Notifiarr',
      'a|b',
      '"quoted", [1]',
      'Ωμέγα 🦊'.repeat(10),
      'x'.repeat(100),
      '🦊'.repeat(100),
    ]) {
      const cursor = encodeAppCursor({ name, id: ID });
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeAppCursor(cursor)).toEqual({ name, id: ID });
    }
    expect(decodeAppCursor(undefined)).toBeUndefined();
  });

  it('are refused with 400 when the API did not hand them out', () => {
    const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      '',
      'not a cursor',
      encoded(['Notifiarr']),
      encoded(['Notifiarr', 'not-a-uuid']),
      encoded(['', ID]),
      encoded(['x'.repeat(101), ID]),
      encoded([1, ID]),
      encoded({ name: 'Notifiarr', id: ID }),
      // A cursor of another list (time|id).
      Buffer.from(`2030-01-01T00:00:00.000Z|${ID}`).toString('base64url'),
    ]) {
      expect(() => decodeAppCursor(cursor)).toThrow(BadRequestException);
      expect(() => decodeAppCursor(cursor)).toThrow('cursor is not a cursor this API returned');
    }
  });
});

describe(containsPattern.name, () => {
  it('matches the search anywhere, with LIKE wildcards and the escape character taken literally', () => {
    expect(containsPattern('notif')).toBe('%notif%');
    expect(containsPattern('100%_a\\b')).toBe('%100\\%\\_a\\\\b%');
  });
});
