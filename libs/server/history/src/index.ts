export * from './lib/changes.service';
export * from './lib/history.module';
export * from './lib/revisions.service';
