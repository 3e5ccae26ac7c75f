export * from './lib/template-app-counts';
export * from './lib/template-files';
export * from './lib/templates.module';
export * from './lib/templates.service';
