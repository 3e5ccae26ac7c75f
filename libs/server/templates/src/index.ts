export * from './lib/template-app-counts';
export * from './lib/pending-template-changes';
export * from './lib/template-files';
export * from './lib/templates.module';
export * from './lib/templates.service';
