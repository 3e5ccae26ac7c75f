export * from './lib/app-proxy-counts';
export * from './lib/apps.module';
export * from './lib/apps.service';
export * from './lib/dto/create-app.dto';
export * from './lib/template-app-counts.provider';
