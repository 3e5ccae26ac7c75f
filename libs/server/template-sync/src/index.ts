export * from './lib/dto/template-repository.dto';
export * from './lib/repository-fetch';
export * from './lib/repository-settings.service';
export * from './lib/template-sync.module';
export * from './lib/template-sync.scheduler';
export * from './lib/template-sync.service';
