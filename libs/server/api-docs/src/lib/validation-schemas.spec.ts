import { ApiProperty, DECORATORS } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { describeClass } from './validation-schemas';

class Limit {
  @IsInt()
  @Min(1)
  @Max(10)
  perMinute!: number;
}

class Sample {
  @MaxLength(20)
  @IsString()
  name!: string;

  @Matches(/^[a-z]+$/)
  @IsString()
  slug!: string;

  /** Present, possibly null. */
  @ValidateIf((_o, value) => value !== null)
  @IsUUID()
  templateId!: string | null;

  /** May be left out, never null. */
  @ValidateIf((_o, value) => value !== undefined)
  @IsBoolean()
  active?: boolean;

  /** May be left out or null. */
  @IsOptional()
  @IsIn(['a', 'b'])
  state?: 'a' | 'b';

  @ValidateIf((_o, value) => value !== null)
  @IsDefined()
  @ValidateNested()
  @Type(() => Limit)
  limit!: Limit | null;

  @IsISO8601({ strict: true })
  until!: string;

  /** Described by hand: kept as it is. */
  @ApiProperty({ description: 'by hand', type: 'string' })
  @IsString()
  manual!: string;
}

/** What `@ApiProperty()` recorded for a property. */
const described = (target: object, property: string): Record<string, unknown> =>
  Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, target, property) as Record<string, unknown>;

describe(describeClass.name, () => {
  beforeAll(() => describeClass(Sample));

  it('describes types, formats, bounds and patterns from the validation decorators', () => {
    expect(described(Sample.prototype, 'name')).toMatchObject({ type: 'string', maxLength: 20, required: true });
    expect(described(Sample.prototype, 'slug')).toMatchObject({ type: 'string', pattern: '^[a-z]+$' });
    expect(described(Sample.prototype, 'until')).toMatchObject({ type: 'string', format: 'date-time' });
    expect(described(Sample.prototype, 'state')).toMatchObject({ enum: ['a', 'b'] });
  });

  it('reads presence and null from the conditions: required, may be left out, may be null', () => {
    expect(described(Sample.prototype, 'templateId')).toMatchObject({ format: 'uuid', required: true, nullable: true });
    const active = described(Sample.prototype, 'active');
    expect(active).toMatchObject({ type: 'boolean', required: false });
    expect(active['nullable']).toBeUndefined();
    expect(described(Sample.prototype, 'state')).toMatchObject({ required: false, nullable: true });
    expect(described(Sample.prototype, 'name')['nullable']).toBeUndefined();
  });

  it('describes a nested object by its class, and that class too', () => {
    const limit = described(Sample.prototype, 'limit');
    expect(limit).toMatchObject({ required: true, nullable: true, isArray: false });
    expect((limit['type'] as () => unknown)()).toBe(Limit);
    describeClass(Limit);
    // An integer with bounds stays an integer.
    expect(described(Limit.prototype, 'perMinute')).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
  });

  it('keeps what a property says of itself with @ApiProperty()', () => {
    expect(described(Sample.prototype, 'manual')).toEqual(
      expect.objectContaining({ description: 'by hand', type: 'string' }),
    );
    expect(described(Sample.prototype, 'manual')['required']).toBeUndefined();
  });
});
