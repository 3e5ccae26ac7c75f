// TypeORM entity classes: for the entity list of the DataSource and its migrations, for other entity
// files (relations) and for specs and test helpers only (eslint.config.mjs). Another domain reaches
// this data through the module's exported service.
export * from './lib/entities/unauthorized-usage.entity';
export * from './lib/entities/usage-hour.entity';
export * from './lib/entities/usage-route.entity';
