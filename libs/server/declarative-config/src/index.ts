export * from './lib/config-file.loader';
export * from './lib/config-import.service';
export * from './lib/declarative-config.module';
export * from './lib/declarative-config.service';
export * from './lib/document/config-document';
export * from './lib/settings-sections';
