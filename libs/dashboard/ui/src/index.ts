export * from './lib/api-error';
export * from './lib/busy-action';
export * from './lib/confirm-dialog.component';
export * from './lib/confirm.service';
export * from './lib/copy-button.component';
export * from './lib/format';
export * from './lib/load-state.component';
export * from './lib/time.component';
