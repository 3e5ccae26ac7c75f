import { getMetadataArgsStorage, ObjectLiteral } from 'typeorm';

/**
 * A stand-in for TypeORM's SelectQueryBuilder over rows held in memory, for the clauses a keyset-paged
 * list uses: `alias.column = :param`, `(alias.a, alias.b) < (:x, :y)`, `orderBy`/`addOrderBy`, `take` and
 * `getMany`. Clauses must name columns as SQL does (the entity's column names, `object_type` for
 * `objectType`, which the services write): a clause naming a column the entity does not have, a
 * parameter it was not given, or a clause of another shape fails the test.
 */
export class FakeQueryBuilder<E extends ObjectLiteral> {
  /** Every condition, as given. */
  readonly clauses: string[] = [];
  private readonly conditions: ((row: E) => boolean)[] = [];
  private readonly order: { property: keyof E; descending: boolean }[] = [];
  private limit?: number;

  constructor(
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    private readonly entity: Function,
    private readonly alias: string,
    private readonly rows: readonly E[],
  ) {}

  where(sql: string, parameters: Record<string, unknown> = {}): this {
    return this.andWhere(sql, parameters);
  }

  andWhere(sql: string, parameters: Record<string, unknown> = {}): this {
    this.clauses.push(sql);
    const column = `${this.alias}\\.(\\w+)`;
    const equals = new RegExp(`^${column} = :(\\w+)$`).exec(sql);
    if (equals) {
      const property = this.property(equals[1]);
      const value = this.parameter(parameters, equals[2]);
      this.conditions.push((row) => compare(row[property], value) === 0);
      return this;
    }
    const before = new RegExp(`^\\(${column}, ${column}\\) < \\(:(\\w+), :(\\w+)\\)$`).exec(sql);
    if (before) {
      const [first, second] = [this.property(before[1]), this.property(before[2])];
      const [x, y] = [this.parameter(parameters, before[3]), this.parameter(parameters, before[4])];
      this.conditions.push((row) => {
        const byFirst = compare(row[first], x);
        return byFirst < 0 || (byFirst === 0 && compare(row[second], y) < 0);
      });
      return this;
    }
    throw new Error(`FakeQueryBuilder does not understand the condition: ${sql}`);
  }

  orderBy(sql: string, direction: 'ASC' | 'DESC' = 'ASC'): this {
    this.order.length = 0;
    return this.addOrderBy(sql, direction);
  }

  addOrderBy(sql: string, direction: 'ASC' | 'DESC' = 'ASC'): this {
    const column = new RegExp(`^${this.alias}\\.(\\w+)$`).exec(sql);
    if (!column) throw new Error(`FakeQueryBuilder does not understand the order: ${sql}`);
    this.order.push({ property: this.property(column[1]), descending: direction === 'DESC' });
    return this;
  }

  take(limit: number): this {
    this.limit = limit;
    return this;
  }

  async getMany(): Promise<E[]> {
    const rows = this.rows.filter((row) => this.conditions.every((condition) => condition(row)));
    rows.sort((a, b) => {
      for (const { property, descending } of this.order) {
        const order = compare(a[property], b[property]);
        if (order !== 0) return descending ? -order : order;
      }
      return 0;
    });
    return rows.slice(0, this.limit);
  }

  /** The entity's property stored in a column. */
  private property(column: string): keyof E {
    const found = getMetadataArgsStorage().columns.find(
      (c) => c.target === this.entity && (c.options.name ?? c.propertyName) === column,
    );
    if (!found) throw new Error(`${this.entity.name} has no column ${column}`);
    return found.propertyName as keyof E;
  }

  private parameter(parameters: Record<string, unknown>, name: string): unknown {
    if (!(name in parameters)) throw new Error(`No value for the parameter :${name}`);
    return parameters[name];
  }
}

/** Compares as PostgreSQL does for timestamps (a Date, or the ISO string a cursor carries) and uuids. */
function compare(a: unknown, b: unknown): number {
  if (a instanceof Date || b instanceof Date) {
    const [x, y] = [a, b].map((v) => (v instanceof Date ? v.getTime() : Date.parse(String(v))));
    return x - y;
  }
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
