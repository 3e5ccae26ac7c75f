export * from './lib/changes.service';
export * from './lib/entities/change.entity';
export * from './lib/entities/revision.entity';
export * from './lib/history.module';
export * from './lib/revisions.service';
