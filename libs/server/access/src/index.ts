export * from './lib/admin-principal';
export * from './lib/decorators/public.decorator';
export * from './lib/decorators/roles.decorator';
export * from './lib/roles';
