import { ApiProperty, DECORATORS, type SchemaObject } from '@nestjs/swagger';
import type { MetadataStorage as TransformerStorage } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';

// class-transformer keeps its metadata (`@Type(() => X)`, which names the class of a nested object) in
// a storage it does not export from its main entry point.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: TransformerStorage;
};

type Class = abstract new (...args: never[]) => unknown;

/** A validation decorator's record in class-validator's storage. */
type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/**
 * Where class-validator-jsonschema's defaults do not fit OpenAPI 3.0 or the way the DTOs mean them:
 * presence and null are read from the DTOs' conditions instead (`IsDefined`'s `type: 'null'` is
 * OpenAPI 3.1), bounds do not decide the type (`@IsInt() @Min(0)` is an integer), and ISO 8601 strings
 * are date-times.
 */
const CONVERTERS = {
  [ValidationTypes.IS_DEFINED]: {},
  [ValidationTypes.CONDITIONAL_VALIDATION]: {},
  isEmpty: {},
  min: (meta: ValidationMetadata) => ({ minimum: meta.constraints[0] as number }),
  max: (meta: ValidationMetadata) => ({ maximum: meta.constraints[0] as number }),
  isIso8601: { type: 'string', format: 'date-time' },
  isDateString: { type: 'string', format: 'date-time' },
} as const;

/** Classes already described in this process (describing is idempotent, but not free). */
const described = new WeakSet<Class>();

/**
 * Describes every class that class-validator knows (the admin API's DTOs: bodies and queries) to
 * `@nestjs/swagger`, as `@ApiProperty()` would, from the validation decorators they already carry:
 * types, formats, patterns, bounds, enums, nested objects, and whether each property is required and
 * may be null. A property that has `@ApiProperty()` of its own keeps it. So every DTO is described
 * without a second set of decorators, including DTOs added later.
 */
export function describeValidatedClasses(): void {
  const storage = getMetadataStorage();
  const targets = new Set<Class>();
  // Every class with validation metadata (the storage keeps them by class).
  for (const metadata of (
    storage as unknown as { validationMetadatas: Map<unknown, ValidationMetadata[]> }
  ).validationMetadatas.values())
    for (const { target } of metadata) if (typeof target === 'function') targets.add(target as Class);
  for (const target of targets) describeClass(target);
}

/** One class: see `describeValidatedClasses`. */
export function describeClass(target: Class): void {
  if (described.has(target)) return;
  described.add(target);
  const schema = targetConstructorToSchema(target as unknown as new () => unknown, {
    additionalConverters: CONVERTERS,
    classTransformerMetadataStorage: defaultMetadataStorage,
    refPointerPrefix: '#/components/schemas/',
  }) as SchemaObject;
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(
    target as unknown as new () => unknown,
    '',
    true,
    false,
  );
  for (const [property, propertySchema] of Object.entries(schema.properties ?? {})) {
    if (Reflect.hasMetadata(DECORATORS.API_MODEL_PROPERTIES, target.prototype as object, property)) continue;
    const own = metadatas.filter((meta) => meta.propertyName === property);
    const presence = presenceOf(own);
    const nested = own.some((meta) => meta.type === ValidationTypes.NESTED_VALIDATION)
      ? nestedClass(target, property)
      : undefined;
    const { $ref: _ref, items, ...rest } = propertySchema as SchemaObject & { $ref?: string };
    const options: Record<string, unknown> = {
      ...rest,
      required: presence.required,
      ...(presence.nullable && { nullable: true }),
    };
    if (nested) {
      delete options['type'];
      Object.assign(options, { type: () => nested, isArray: rest.type === 'array' });
    } else if (items) options['items'] = items;
    ApiProperty(options)(target.prototype as object, property);
  }
}

/**
 * Whether a property may be left out or be null, from its conditions (`@IsOptional()`, `@ValidateIf()`):
 * each is asked about an object without the property and one where it is null. A condition that fails
 * on either counts as not skipping it.
 */
function presenceOf(metadatas: ValidationMetadata[]): { required: boolean; nullable: boolean } {
  let required = true;
  let nullable = false;
  for (const meta of metadatas) {
    if (meta.type !== ValidationTypes.CONDITIONAL_VALIDATION) continue;
    const condition = meta.constraints[0] as (object: object, value: unknown) => boolean;
    const skips = (object: object, value: unknown) => {
      try {
        return !condition(object, value);
      } catch {
        return false;
      }
    };
    if (skips({}, undefined)) required = false;
    if (skips({ [meta.propertyName]: null }, null)) nullable = true;
  }
  return { required, nullable };
}

/** The class of a nested object (`@Type(() => X)`, else the property's declared type). */
function nestedClass(target: Class, property: string): Class | undefined {
  const typed = defaultMetadataStorage.findTypeMetadata(target, property) as
    | { typeFunction: () => unknown }
    | undefined;
  const type = typed ? typed.typeFunction() : Reflect.getMetadata('design:type', target.prototype as object, property);
  return typeof type === 'function' && type !== Array && type !== Object ? (type as Class) : undefined;
}
