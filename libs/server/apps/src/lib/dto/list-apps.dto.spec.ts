import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ListAppsDto } from './list-apps.dto';

const problems = (query: object) => validateSync(plainToInstance(ListAppsDto, query)).map((e) => e.property);

describe(ListAppsDto.name, () => {
  it("takes PageQueryDto's limit: a number from 1 to 200", () => {
    expect(plainToInstance(ListAppsDto, { limit: '50' }).limit).toBe(50);
    expect(problems({ limit: '50' })).toEqual([]);
    expect(problems({ limit: '0' })).toEqual(['limit']);
    expect(problems({ limit: '201' })).toEqual(['limit']);
  });

  it("replaces PageQueryDto's cursor length: an app cursor carries a name", () => {
    expect(problems({ cursor: 'a'.repeat(1000) })).toEqual([]);
    expect(problems({ cursor: 'a'.repeat(1001) })).toEqual(['cursor']);
  });
});
